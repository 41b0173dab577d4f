import Foundation
import OMSProtocol
import SQLiteKit
import WalletCrypto

extension WaasService {
    static let walletMethods: [String: Method] = [
        WaasMethod.listWallets.path: method { try await $0.listWallets($1, $2) },
        WaasMethod.createWallet.path: method { try await $0.createWallet($1, $2) },
        WaasMethod.useWallet.path: method { try await $0.useWallet($1, $2) },
    ]

    /// Page sizes (OMS-REFERENCE "Our decisions": default 50, at most 100, 0 refused).
    static let defaultPageSize = 50
    static let maxPageSize = 100
    /// References are at most 128 UTF-8 bytes, for create and import alike.
    static let maxReferenceBytes = 128

    static func pageSize(_ page: Page?) throws(WaasError) -> Int {
        guard let limit = page?.limit else { return defaultPageSize }
        guard limit >= 1, limit <= maxPageSize else {
            throw WaasError(.invalidRequest, "page.limit must be 1...\(maxPageSize), got \(limit)")
        }
        return limit
    }

    /// Cursors are opaque to clients: base64url of `<kind>:<last sequence number>`.
    static func cursor(kind: String, after seq: Int64) -> String {
        Base64URL.encode(Array("\(kind):\(seq)".utf8))
    }

    static func position(of page: Page?, kind: String) throws(WaasError) -> Int64 {
        guard let cursor = page?.cursor, !cursor.allSatisfy(\.isWhitespace) else { return 0 }
        guard let bytes = try? Base64URL.decode(cursor), let text = String(bytes: bytes, encoding: .utf8),
            text.hasPrefix(kind + ":"), let seq = Int64(text.dropFirst(kind.count + 1)), seq >= 0
        else { throw WaasError(.invalidRequest, "page.cursor is not a cursor this list returned") }
        return seq
    }

    static func validateReference(_ reference: String?) throws(WaasError) {
        guard let reference else { return }
        if let problem = referenceProblem(reference) { throw WaasError(.invalidRequest, "reference " + problem) }
    }

    /// What is wrong with a reference, nil when nothing: more than ``maxReferenceBytes`` UTF-8 bytes, or a
    /// NUL byte, which a C string would cut (issue 28: it was stored).
    static func referenceProblem(_ reference: String) -> String? {
        let count = reference.utf8.count
        guard count <= maxReferenceBytes else { return "is \(count) bytes; at most \(maxReferenceBytes) UTF-8 bytes" }
        for (offset, byte) in reference.utf8.enumerated() where byte == 0 {
            return "holds a NUL byte at byte \(offset)"
        }
        return nil
    }

    func walletPage(_ db: SQLiteDatabase, account: String, page: Page?) throws -> ListWalletsResponse {
        let limit = try Self.pageSize(page)
        let after = try Self.position(of: page, kind: "w")
        let (wallets, more) = try db.wallets(account: account, afterSeq: after, limit: limit)
        let next = more ? wallets.last.map { Page(limit: limit, cursor: Self.cursor(kind: "w", after: $0.seq)) } : nil
        return ListWalletsResponse(wallets: wallets.map(\.wire), page: next)
    }

    func listWallets(_ call: Call, _ request: ListWalletsRequest) async throws -> ListWalletsResponse {
        try await store.write { [self] db in
            let caller = try authenticate(db, call)
            return try walletPage(db, account: caller.account.id, page: request.page)
        }
    }

    /// A new key made inside the core (key origin `enclave`), its address, and its sealed form.
    struct MintedKey: Sendable {
        var walletId: String
        var type: WalletType
        var address: String
        var sealed: [UInt8]
    }

    func mintKey(_ type: WalletType) throws -> MintedKey {
        let walletId = Identifier.make("wal")
        switch type {
        case .ethereum:
            let key = Secp256k1.PrivateKey.generate()
            return MintedKey(
                walletId: walletId, type: type, address: key.ethereumAddress.checksummed,
                sealed: try custody.seal(key.secretBytes, for: walletId))
        case .solana:
            let key = Ed25519.PrivateKey.generate()
            return MintedKey(
                walletId: walletId, type: type, address: key.solanaAddress,
                sealed: try custody.seal(key.seed, for: walletId))
        case .unknown(let name):
            throw WaasError(.unsupportedWalletType, "wallet type \(name) is not supported")
        }
    }

    func createWallet(_ call: Call, _ request: CreateWalletRequest) async throws -> WalletResponse {
        let family = request.resolvedNetworkFamily
        guard family.isKnown else {
            throw WaasError(.unsupportedWalletType, "networkFamily \(family) is not supported")
        }
        if let type = request.type, type.networkFamily != family {
            throw WaasError(.invalidRequest, "type \(type) is not of networkFamily \(family)")
        }
        if let implementation = request.implementation, implementation != "eoa" {
            throw WaasError(
                .unsupportedWalletType, "implementation \(implementation): this core makes eoa wallets only")
        }
        try Self.validateReference(request.reference)
        // Key generation is CPU work: done before the transaction so the writer is held only for the insert.
        let minted = try mintKey(family.walletType)
        return try await store.write { [self] db in
            let caller = try authenticate(db, call)
            let record = WalletRecord(
                seq: 0, id: minted.walletId, accountId: caller.account.id, type: minted.type, address: minted.address,
                reference: request.reference, keyOrigin: .enclave)
            let stored = try db.insertWallet(record, project: call.project.id, sealedKey: minted.sealed, now: call.now)
            return WalletResponse(wallet: stored.wire)
        }
    }

    func useWallet(_ call: Call, _ request: UseWalletRequest) async throws -> WalletResponse {
        try await store.write { [self] db in
            let caller = try authenticate(db, call)
            guard let wallet = try db.wallet(request.walletId, account: caller.account.id) else {
                throw WaasError(.walletNotFound, "no wallet \(request.walletId) for this account")
            }
            return WalletResponse(wallet: wallet.wire)
        }
    }
}
