import Foundation
import OMSCore
import OMSProtocol
import SQLiteKit
import Testing
import WalletCrypto

/// `Waas/CreateWallets` (docs/protocol.md "CreateWallets"), through both transports.
@Suite struct CreateWalletsTests {
    @Test(arguments: TransportKind.allCases)
    func createsNewAndAnswersExistingInRequestOrder(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let (client, _) = try await core.signIn()
            let earlier = try await core.createWallet(client, reference: "b")
            let first = try await client.createWallets(networkFamily: .evm, references: ["a", "b", "c"])
            #expect(first.map(\.wallet.reference) == ["a", "b", "c"])
            #expect(first.map(\.created) == [true, false, true])
            #expect(first[1].wallet == earlier)
            for entry in first {
                #expect(entry.wallet.keyOrigin == .enclave && entry.wallet.walletType == .ethereum)
                #expect((try? EthereumAddress(entry.wallet.address)) != nil)
            }
            // The same batch again (a lost reply, a resumed job) creates nothing and answers the same wallets.
            let again = try await client.createWallets(networkFamily: .evm, references: ["c", "a", "b"])
            #expect(again.map(\.created) == [false, false, false])
            #expect(again.map(\.wallet) == [first[2].wallet, first[0].wallet, first[1].wallet])

            let solana = try await client.createWallets(networkFamily: .solana, references: ["s1", "a", "s2"])
            #expect(solana.map(\.created) == [true, false, true])
            #expect(solana[1].wallet.walletType == .ethereum, "an existing reference answers its own wallet")
            #expect(try Base58.decode(solana[0].wallet.address).count == 32)
            #expect(solana[0].wallet.walletType == .solana && solana[2].wallet.networkFamily == .solana)

            let listed = try await client.call(.listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
            #expect(listed.wallets.map(\.reference) == ["b", "a", "c", "s1", "s2"])
            #expect(Set(listed.wallets.map(\.address)).count == 5)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aFullBatchIsOneRequestAndEveryReferenceOnce(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let (client, _) = try await core.signIn()
            let references = (1...CreateWalletsRequest.maxReferences).map { "w-\($0)" }
            let made = try await client.createWallets(networkFamily: .evm, references: references)
            #expect(made.count == 1000 && made.allSatisfy(\.created))
            #expect(made.map { $0.wallet.reference ?? "" } == references)
            #expect(Set(made.map(\.wallet.id)).count == 1000 && Set(made.map(\.wallet.address)).count == 1000)
            // Half old, half new: only the new half is made.
            let mixed = Array(references[500...]) + (1001...1500).map { "w-\($0)" }
            let second = try await client.createWallets(networkFamily: .evm, references: mixed)
            #expect(second.filter(\.created).count == 500)
            #expect(second.prefix(500).map(\.wallet) == made.suffix(500).map(\.wallet))
            #expect(try Self.walletCount(core) == 1500)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func refusesBadRequestsNamingTheIndexAndChangesNothing(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let (client, _) = try await core.signIn()
            _ = try await client.createWallets(networkFamily: .evm, references: ["kept"])
            let before = try CoreDatabaseDump.read(core.home)
            let long = String(repeating: "é", count: 65)  // 130 UTF-8 bytes
            let cases: [(CreateWalletsRequest, WaasErrorCode, String)] = [
                (.init(networkFamily: .evm, references: []), .invalidRequest, "1...1000"),
                (.init(networkFamily: .evm, references: (0...1000).map { "r\($0)" }), .invalidRequest, "got 1001"),
                (
                    .init(networkFamily: .evm, references: ["a", "b", long]), .invalidRequest,
                    "references[2] is 130 bytes"
                ),
                (
                    .init(networkFamily: .evm, references: ["x", "y", "kept", "x"]), .invalidRequest,
                    "references[3] repeats references[0]"
                ),
                (.init(networkFamily: .unknown("tron"), references: ["t"]), .unsupportedWalletType, "tron"),
            ]
            for (request, code, text) in cases {
                let error = try await core.error(client, .createWallets, request)
                #expect(error?.code == code, "\(text)")
                #expect(error?.message.contains(text) == true, "\(error?.message ?? "no error") should say \(text)")
            }
            #expect(try CoreDatabaseDump.read(core.home).changes(since: before).isEmpty)
            // 128 bytes is the limit, and an empty reference is a reference, as for CreateWallet.
            let edge = try await client.createWallets(
                networkFamily: .evm, references: [String(repeating: "é", count: 64), ""])
            #expect(edge.map(\.created) == [true, true])
        }
    }

    @Test func needsASignedInCallerAndKeepsAccountsApart() async throws {
        try await CoreFixture.with { core in
            let (alice, _) = try await core.signIn(email: "alice@example.com")
            let (bob, _) = try await core.signIn(email: "bob@example.com")
            let a = try await alice.createWallets(networkFamily: .evm, references: ["shared"])
            let b = try await bob.createWallets(networkFamily: .evm, references: ["shared"])
            #expect(a[0].created && b[0].created && a[0].wallet.id != b[0].wallet.id)
            let stranger = try core.newClient()
            let before = try CoreDatabaseDump.read(core.home)
            let error = try await core.error(
                stranger, .createWallets, CreateWalletsRequest(networkFamily: .evm, references: ["shared", "new"]))
            #expect(error?.code == .unauthorized)
            #expect(try CoreDatabaseDump.read(core.home).changes(since: before).isEmpty)
        }
    }

    /// The nonce is taken on arrival (docs/protocol.md "Order of work"): a batch signed before one the
    /// core already took is refused, and so is a replay of a batch it made; neither changes anything.
    @Test(arguments: TransportKind.allCases)
    func outOfOrderAndReplayedBatchesAreRefusedAndChangeNothing(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let (client, _) = try await core.signIn()
            let earlier = try client.makeRequest(
                .createWallets, body: CreateWalletsRequest(networkFamily: .evm, references: ["early"]).jsonBytes())
            let later = try client.makeRequest(
                .createWallets, body: CreateWalletsRequest(networkFamily: .solana, references: ["late"]).jsonBytes())
            #expect(try await core.transport.send(later).status == 200)
            let before = try CoreDatabaseDump.read(core.home)
            for (name, request) in [("signed earlier", earlier), ("replayed", later)] {
                let response = try await core.transport.send(request)
                let error = WaasError(wireBody: response.body, httpStatus: response.status)
                #expect(error?.code == .preconditionFailed, "\(name)")
                #expect(error?.message.contains("is not above the last one used") == true, "\(name)")
            }
            #expect(try CoreDatabaseDump.read(core.home).changes(since: before).isEmpty)
            #expect(try Self.walletCount(core) == 1)
            // The client's own resend under a fresh nonce goes through.
            let resent = try await client.createWallets(networkFamily: .evm, references: ["early", "late"])
            #expect(resent.map(\.created) == [true, false])
        }
    }

    @Test func concurrentCopiesOfOneBatchMakeEachWalletOnce() async throws {
        try await CoreFixture.with { core in
            let (client, _) = try await core.signIn()
            let references = (1...200).map { "c-\($0)" }
            let replies = try await withThrowingTaskGroup(of: [CreatedWallet].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        // Concurrent requests on one credential may arrive out of nonce order: send again.
                        while true {
                            do {
                                return try await client.createWallets(networkFamily: .evm, references: references)
                            } catch let error as WaasError where error.code == .preconditionFailed {}
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.count == 4)
            for reply in replies { #expect(reply.map(\.wallet.id) == replies[0].map(\.wallet.id)) }
            #expect(replies.map { $0.filter(\.created).count }.reduce(0, +) == 200)
            #expect(try Self.walletCount(core) == 200)
        }
    }

    @Test(arguments: [NetworkFamily.evm, .solana])
    func newKeysAreSealedForTheirRowAndNowhereInPlaintext(_ family: NetworkFamily) async throws {
        try await CoreFixture.with { core in
            let (client, _) = try await core.signIn()
            let made = try await client.createWallets(networkFamily: family, references: (1...64).map { "k\($0)" })
            let kek = try SecretBytes([UInt8](Data(contentsOf: core.home.keyEncryptionKeyURL)))
            var configuration = SQLiteDatabase.Configuration.default
            configuration.flags = .readOnly
            let db = try SQLiteDatabase(path: core.home.databaseURL.path, configuration: configuration)
            var secrets: [[UInt8]] = []
            for entry in made {
                let sealed = try #require(
                    try db.rows("SELECT sealed_key FROM wallets WHERE id = ?", [.text(entry.wallet.id)]).first?[0])
                guard case .blob(let bytes) = sealed else { Issue.record("sealed_key is not a blob"); continue }
                // nonce || ciphertext || tag under the KEK, bound to the wallet id.
                #expect(bytes.count == 12 + 32 + 16)
                let key = try AESGCM.open(
                    Array(bytes[12...]), key: kek, nonce: Array(bytes[..<12]),
                    authenticating: Array(entry.wallet.id.utf8))
                let address =
                    family == .evm
                    ? try Secp256k1.PrivateKey(SecretBytes(key)).ethereumAddress.checksummed
                    : try Ed25519.PrivateKey(seed: SecretBytes(key)).solanaAddress
                #expect(address == entry.wallet.address)
                #expect(throws: (any Error).self) {
                    try AESGCM.open(
                        Array(bytes[12...]), key: kek, nonce: Array(bytes[..<12]),
                        authenticating: Array("wal_other".utf8))
                }
                secrets.append(key)
            }
            let scan = SecretScan(secrets)
            #expect(scan.count == 64)
            #expect(try scan.findings(under: core.home.url).isEmpty)
        }
    }

    @Test func theReplyIsTheJSONCodableWouldWriteAndReadsBack() throws {
        let reply = CreateWalletsResponse(wallets: [
            CreatedWallet(
                wallet: Wallet(
                    id: "wal_a", address: "0xAb", networkFamily: .evm, keyOrigin: .enclave, type: .ethereum,
                    reference: "q\"b\\s/\n\r\t\u{8}\u{c}\u{1}\u{1f}é😀"), created: true),
            CreatedWallet(
                wallet: Wallet(id: "wal_b", address: "So1", networkFamily: .solana, keyOrigin: .imported),
                created: false),
        ])
        let direct = reply.jsonBytes()
        // The same members and values as Codable writes (JSONEncoder's member order is not fixed).
        #expect(try JSONValue.parse(direct) == JSONValue.parse(try WaasClient.encodeBody(reply)))
        #expect(String(decoding: direct, as: UTF8.self).hasPrefix(#"{"wallets":[{"wallet":{"id":"wal_a","#))
        #expect(try CreateWalletsResponse(jsonBytes: direct) == reply)
        #expect(try CreateWalletsResponse(jsonBytes: WaasClient.encodeBody(reply)) == reply)
        // Any member order, unknown members and explicit nulls, as Codable reads them.
        let other =
            #"{"extra":1,"wallets":[{"created":false,"wallet":{"reference":null,"keyOrigin":"imported","#
            + #""networkFamily":"solana","address":"So1","id":"wal_b","more":[1,{"x":2}]}}]}"#
        #expect(try CreateWalletsResponse(jsonBytes: Array(other.utf8)).wallets == [reply.wallets[1]])
        let escaped =
            #"{"wallets":[{"wallet":{"id":"w","address":"a","networkFamily":"evm","keyOrigin":"enclave","#
            + #""reference":"x\u00e9\ud83d\ude00\/\"\n"},"created":true}]}"#
        #expect(try CreateWalletsResponse(jsonBytes: Array(escaped.utf8)).wallets.first?.wallet.reference == "xé😀/\"\n")
        for broken in [
            #"{"wallets":[{"wallet":{"id":"x"},"created":true}]}"#, "{", #"{"wallets":3}"#, #"{"wallets":[]} x"#,
            #"{"wallets":[{"wallet":{"id":"a\qb"}}]}"#,
        ] {
            #expect(throws: CreateWalletsResponse.ReplyError.self) {
                try CreateWalletsResponse(jsonBytes: Array(broken.utf8))
            }
        }
    }

    @Test func requestJSONIsWhatCodableReads() throws {
        let request = CreateWalletsRequest(
            networkFamily: .solana, references: ["a", "b/c", "q\"u\\o\n\t\u{01}", "é😀", ""])
        let direct = request.jsonBytes()
        #expect(try JSONDecoder().decode(CreateWalletsRequest.self, from: Data(direct)) == request)
        #expect(try JSONValue.parse(direct) == JSONValue.parse(try WaasClient.encodeBody(request)))
        #expect(
            String(decoding: direct, as: UTF8.self).hasPrefix(#"{"networkFamily":"solana","references":["a","b/c""#))
    }

    static func walletCount(_ core: CoreFixture) throws -> Int64 {
        var configuration = SQLiteDatabase.Configuration.default
        configuration.flags = .readOnly
        let db = try SQLiteDatabase(path: core.home.databaseURL.path, configuration: configuration)
        return try db.scalarInt("SELECT count(*) FROM wallets") ?? -1
    }
}
