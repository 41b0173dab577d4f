import Foundation
import OMSProtocol
import SQLiteKit
import WalletCrypto

/// `Waas/CreateWallets` (a walletops extension, docs/protocol.md "CreateWallets"): up to 1000 wallets by
/// reference in one signed request, exactly once per reference.
///
/// The work is split so the store's single writer does only what must be serial:
/// 1. a first write, queued at once but awaited only before the insert, authenticates the request (one
///    nonce for the batch); meanwhile the reader connection finds the references the account already
///    has (a resumed batch costs no key generation);
/// 2. the keys of the others are generated, their addresses derived and sealed under the KEK on every
///    core at once (a task group over chunks), with the randomness drawn from the OS CSPRNG in bulk;
/// 3. a second write inserts each wallet unless its reference appeared meanwhile (prepared statements
///    reused row after row). Both writes join the store's group commit: one fsync per group.
///
/// The nonce is used from step 1 on: a batch refused later (its credential revoked meanwhile) leaves
/// the nonce spent and nothing else.
extension WaasService {
    static let createWalletsMethods: [String: Method] = [
        // The reply is written directly (`jsonBytes`), not through Codable: the same JSON for a fraction of
        // the CPU.
        WaasMethod.createWallets.path: method({ try await $0.createWallets($1, $2) }, encode: { $0.jsonBytes() })
    ]

    /// Checks a CreateWallets request: the family, 1...1000 references, each valid and none repeated.
    static func validate(_ request: CreateWalletsRequest) throws(WaasError) {
        guard request.networkFamily.isKnown else {
            throw WaasError(.unsupportedWalletType, "networkFamily \(request.networkFamily) is not supported")
        }
        let limit = CreateWalletsRequest.maxReferences
        guard (1...limit).contains(request.references.count) else {
            throw WaasError(
                .invalidRequest, "references must hold 1...\(limit) entries, got \(request.references.count)")
        }
        var seen: [String: Int] = [:]
        seen.reserveCapacity(request.references.count)
        for (index, reference) in request.references.enumerated() {
            if let problem = referenceProblem(reference) {
                throw WaasError(.invalidRequest, "references[\(index)] " + problem)
            }
            if let first = seen.updateValue(index, forKey: reference) {
                throw WaasError(.invalidRequest, "references[\(index)] repeats references[\(first)]")
            }
        }
    }

    func createWallets(_ call: Call, _ request: CreateWalletsRequest) async throws -> CreateWalletsResponse {
        try Self.validate(request)
        let references = request.references
        let type = request.networkFamily.walletType
        // The nonce is taken now, in arrival order: batches in flight on one credential reach this point
        // in the order they were signed, while their key generation may end in any order (checking the
        // nonce only at the insert would refuse most of them after the work). The write is queued, not
        // awaited: a bulk insert of another batch may hold the writer, and the probe and the key
        // generation below need neither its lock nor its answer until the insert.
        let authentication = try admit(call)
        // The probe on the reader connection, before any key is made: a resumed batch costs no key
        // generation. Its checks are authentication's, minus the nonce.
        let (account, found): (String, [Int: WalletRecord])
        do {
            let nonceSeen: Bool
            (account, nonceSeen, found) = try await store.read { [self] db in
                let (caller, nonceSeen) = try signedInCaller(db, call)
                return (
                    caller.account.id, nonceSeen, try db.wallets(account: caller.account.id, references: references)
                )
            }
            if nonceSeen { _ = try await authentication.value() }
        } catch {
            // The nonce write's verdict first: a request it refuses is refused for that reason.
            _ = try await authentication.value()
            throw error
        }
        let missing = references.indices.filter { found[$0] == nil }
        var entries = [CreatedWallet?](repeating: nil, count: references.count)
        for (index, record) in found { entries[index] = CreatedWallet(wallet: record.wire, created: false) }
        let minted = missing.isEmpty ? [] : try await Self.mintKeys(type, count: missing.count, custody: custody)
        // The nonce taken (and the caller still signed in) before anything is answered or inserted.
        guard try await authentication.value() == account else {
            // The credential was signed in again to another account while the batch was probed.
            throw WaasError(.preconditionFailed, "the credential changed account during the request; send it again")
        }
        guard !missing.isEmpty else { return CreateWalletsResponse(wallets: entries.map { $0! }) }
        let project = call.project.id
        let credential = try signature(of: call).credential
        let created = try await store.write(weight: missing.count) { db -> [(Int, CreatedWallet)] in
            // Still the caller's to use: not revoked since the request was authenticated.
            guard try db.credential(credential, project: project)?.revokedAt == nil else {
                throw WaasError(.unauthorized, "credential was revoked")
            }
            let rows = missing.enumerated().map { offset, index in
                let key = minted[offset]
                return (
                    record: WalletRecord(
                        seq: 0, id: key.walletId, accountId: account, type: key.type, address: key.address,
                        reference: references[index], keyOrigin: .enclave),
                    sealedKey: key.sealed
                )
            }
            let stored = try db.insertEnclaveWalletsUnlessReferenced(rows, project: project, now: call.now)
            var made: [(Int, CreatedWallet)] = []
            made.reserveCapacity(missing.count)
            for (offset, index) in missing.enumerated() {
                if let wallet = stored[offset] {
                    made.append((index, CreatedWallet(wallet: wallet.wire, created: true)))
                } else if let existing = try db.wallet(account: account, reference: references[index]) {
                    // Made by a concurrent request since the probe (or named twice in this one): this
                    // key is dropped unused.
                    made.append((index, CreatedWallet(wallet: existing.wire, created: false)))
                }
            }
            return made
        }
        for (index, entry) in created { entries[index] = entry }
        return CreateWalletsResponse(wallets: entries.map { $0! })
    }

    /// Fewest keys worth a task of their own: below this the hop costs more than it spreads.
    static let mintChunkMinimum = 16

    /// `count` new enclave keys of `type`, made on every core: one chunk per active processor.
    static func mintKeys(_ type: WalletType, count: Int, custody: KeyCustody) async throws -> [MintedKey] {
        guard count > 0 else { return [] }
        if case .unknown(let name) = type {
            throw WaasError(.unsupportedWalletType, "wallet type \(name) is not supported")
        }
        let milliseconds = UInt64(Date().timeIntervalSince1970 * 1000)
        let chunks = max(1, min(ProcessInfo.processInfo.activeProcessorCount, count / mintChunkMinimum))
        if chunks == 1 { return try mintChunk(type, count: count, custody: custody, milliseconds: milliseconds) }
        let size = (count + chunks - 1) / chunks
        return try await withThrowingTaskGroup(of: (Int, [MintedKey]).self) { group in
            for chunk in 0..<chunks {
                let chunkCount = min(size, count - chunk * size)
                guard chunkCount > 0 else { continue }
                group.addTask {
                    (chunk, try mintChunk(type, count: chunkCount, custody: custody, milliseconds: milliseconds))
                }
            }
            var parts = [[MintedKey]](repeating: [], count: chunks)
            for try await (chunk, keys) in group { parts[chunk] = keys }
            return parts.flatMap { $0 }
        }
    }

    /// Random bytes per key: the key (32), the seal's nonce (12), the wallet id's random part (10).
    private static let randomStride = 54

    /// `count` keys on the calling thread, with one draw from the CSPRNG for all their random bytes.
    static func mintChunk(_ type: WalletType, count: Int, custody: KeyCustody, milliseconds: UInt64) throws
        -> [MintedKey]
    {
        let sealer = try custody.sealer()
        let stride = randomStride
        // A secret buffer: it holds the keys; the nonces and id bytes beside them are public.
        let random = SecretBytes.random(count: count * stride)
        var keys: [MintedKey] = []
        keys.reserveCapacity(count)
        try random.withUnsafeBytes { raw in
            let secrets = (0..<count).map { index in
                SecretBytes(count: 32) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[index * stride..<index * stride + 32]))
                }
            }
            // Solana: every public key of the chunk in one call, normalised with one shared field inversion
            // (about a third less CPU per key than libsodium's crypto_sign_seed_keypair; docs/bench.md).
            var solanaKeys: [Ed25519.PublicKey] = []
            if case .solana = type { solanaKeys = try Ed25519.publicKeys(seeds: secrets) }
            for index in 0..<count {
                let base = index * stride
                let secret = secrets[index]
                let nonce = Array(raw[base + 32..<base + 44])
                let walletId = Identifier.make(
                    "wal", milliseconds: milliseconds,
                    random: UnsafeRawBufferPointer(rebasing: raw[base + 44..<base + 54]))
                let address: String
                let sealed: [UInt8]
                switch type {
                case .ethereum:
                    // 32 random bytes are a valid scalar but with probability about 2^-128.
                    let key = (try? Secp256k1.PrivateKey(secret)) ?? Secp256k1.PrivateKey.generate()
                    address = key.ethereumAddress.checksummed
                    sealed = try sealer.seal(key.secretBytes, nonce: nonce, for: walletId)
                case .solana:
                    address = solanaKeys[index].solanaAddress
                    sealed = try sealer.seal(secret, nonce: nonce, for: walletId)
                case .unknown(let name):
                    throw WaasError(.unsupportedWalletType, "wallet type \(name) is not supported")
                }
                keys.append(MintedKey(walletId: walletId, type: type, address: address, sealed: sealed))
            }
        }
        return keys
    }
}
