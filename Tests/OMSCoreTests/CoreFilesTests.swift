import Foundation
import OMSCore
import OMSProtocol
import SQLiteKit
import Testing
import WalletCrypto

/// What the core leaves on disk: every file and folder private to its owner, and no wallet key in
/// plaintext anywhere (database, WAL, shared memory, key file, outbox).
@Suite struct CoreFilesTests {
    @Test(arguments: TransportKind.allCases)
    func homeFilesArePrivateAndHoldNoPlaintextWalletKey(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let (client, _) = try await core.signIn()
            var wallets: [Wallet] = []
            for family in [NetworkFamily.evm, .solana, .evm, .solana, .evm] {
                wallets.append(try await core.createWallet(client, family, reference: "ref-\(wallets.count)"))
            }
            _ = try await client.call(
                .getIDToken, GetIDTokenRequest(walletId: wallets[0].id), as: GetIDTokenResponse.self)
            _ = try await client.call(.listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
            _ = try await client.call(
                .commitVerifier,
                CommitVerifierRequest(identityType: .email, authMode: .otp, metadata: [:], handle: "otp@example.com"),
                as: CommitVerifierResponse.self)
            _ = try await core.service.rotateSigningKey()

            // Every path under the home, the home included: no group or other permission bits.
            let files = try Self.paths(under: core.home.url)
            let names = Set(files.map(\.lastPathComponent))
            for required in ["core.sqlite", "core.sqlite-wal", "core.sqlite-shm", "kek.key", "otp@example.com.txt"] {
                #expect(names.contains(required), "\(required) is missing: the check would not cover it")
            }
            for url in files + [core.home.url] {
                var info = stat()
                #expect(lstat(url.path, &info) == 0)
                #expect(
                    info.st_mode & 0o077 == 0,
                    "\(url.lastPathComponent) has mode \(String(info.st_mode & 0o777, radix: 8))")
            }

            // Open each wallet's sealed key with the home's KEK, then look for it in every file.
            let custody = try KeyCustody.load(home: core.home, create: false)
            var configuration = SQLiteDatabase.Configuration.default
            configuration.flags = .readOnly
            let db = try SQLiteDatabase(path: core.home.databaseURL.path, configuration: configuration)
            let rows = try db.rows("SELECT id, sealed_key FROM wallets ORDER BY seq")
            #expect(rows.count == wallets.count)
            let contents = try files.filter { !$0.hasDirectoryPath }.map {
                ($0.lastPathComponent, try Data(contentsOf: $0))
            }
            for row in rows {
                guard case .text(let id) = row[0], case .blob(let sealed) = row[1] else {
                    Issue.record("wallet row without id or sealed key")
                    continue
                }
                // Control: the sealed form is found, so the search reads the database's bytes.
                #expect(contents.contains { $0.1.range(of: Data(sealed)) != nil }, "sealed key of \(id) not found")
                let key = try custody.open(sealed, for: id)
                #expect(key.count == 32)
                let forms = key.withUnsafeBytes { raw -> [Data] in
                    let bytes = Array(raw)
                    let hex = bytes.map { String(format: "%02x", $0) }.joined()
                    return [Data(bytes), Data(hex.utf8), Data(hex.uppercased().utf8), Data(bytes).base64EncodedData()]
                }
                for (name, data) in contents {
                    for (index, form) in forms.enumerated() {
                        #expect(
                            data.range(of: form) == nil, "\(name) holds wallet \(id)'s key in plaintext (form \(index))"
                        )
                    }
                }
            }
        }
    }

    static func paths(under root: URL) throws -> [URL] {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey])
        else {
            return []
        }
        var out: [URL] = []
        for case let url as URL in walker {
            let isDirectory = (try url.resourceValues(forKeys: [.isDirectoryKey])).isDirectory ?? false
            out.append(isDirectory ? url.appendingPathComponent("", isDirectory: true) : url)
        }
        return out
    }
}
