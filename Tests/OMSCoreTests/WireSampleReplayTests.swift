import Foundation
import OMSProtocol
import TestSupport
import Testing

@testable import OMSCore

/// The requests the official TypeScript SDK sent (Tests/Fixtures/wire-samples) are sent again exactly as
/// captured, headers and body bytes, to a core whose project has the capture's publishable key. Each
/// one the core serves must pass authentication (key, scope, signature), and then gets what the table
/// below says: the sign-in commitments are accepted as the first requests of their credentials; the rest
/// name the recording server's verifiers and wallets, or a credential that never completed sign-in.
@Suite struct WireSampleReplayTests {
    static let publishableKey = "pk_local_sdbx_abc123_secretpart"

    /// One captured request.
    struct Capture {
        var file: String
        var path: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        var request: WaasHTTPRequest { WaasHTTPRequest(path: path, headers: headers, body: body) }
    }

    static func captures() throws -> [Capture] {
        let folder = Fixtures.url("wire-samples")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted()
        return try files.map { file in
            let json = try #require(try Fixtures.json("wire-samples/\(file)") as? [String: Any])
            let headers = try #require(json["headers"] as? [String: String])
            return Capture(
                file: file, path: try #require(json["path"] as? String),
                headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                body: Array(try #require(json["rawBody"] as? String).utf8))
        }
    }

    /// What each capture the core serves gets back (nil: success).
    static let expected: [String: WaasErrorCode?] = [
        "01_WaasPublic_Status.json": nil,
        "02_WaasPublic_GetJWKS.json": nil,
        // OIDC commitment: accepted as the first request of its P-256 credential.
        "03_Waas_CommitVerifier.json": nil,
        // vrf_3 was the recording server's verifier id; ours are random.
        "04_Waas_CompleteAuth.json": .invalidRequest,
        // The credential never completed sign-in here (the recording server's ID token is not trusted).
        "05_Waas_CreateWallet.json": .unauthorized,
        "06_Waas_ListWallets.json": .unauthorized,
        "07_Waas_CreateWallet.json": .unauthorized,
        "08_Waas_GetIDToken.json": .unauthorized,
        "10_Waas_SignMessage.json": .unauthorized,
        // Public: the captured signature (0x11 bytes, v 17) is no signature at all, so isValid is false.
        "11_WaasPublic_IsValidMessageSignature.json": nil,
        // Email one-time code: the commitment is accepted and a code goes to the outbox.
        "14_Waas_CommitVerifier.json": nil,
        "15_Waas_CompleteAuth.json": .invalidRequest,
        "16_Waas_UseWallet.json": .unauthorized,
        // The OIDC flow with an Ethereum-key (EIP-191) credential.
        "17_Waas_CommitVerifier.json": nil,
        "18_Waas_CompleteAuth.json": .invalidRequest,
        "19_Waas_UseWallet.json": .unauthorized,
    ]

    @Test(arguments: TransportKind.allCases)
    func capturedRequestsPassAuthentication(_ kind: TransportKind) async throws {
        let clock = ManualClock(1_796_008_015)
        try await CoreFixture.with(kind, clock: clock, project: "abc123", publishableKey: Self.publishableKey) {
            core in
            #expect(core.project.id == "prj_abc123")
            var tally = VectorTally("wire-samples")
            var outcomes: [String] = []
            for capture in try Self.captures() {
                guard let method = WaasMethod(path: capture.path), WaasService.methods[method.path] != nil else {
                    outcomes.append("\(capture.file): not served by this core")
                    tally.skipped()
                    continue
                }
                let reply = try await core.transport.send(capture.request)
                let error = WaasError(wireBody: reply.body, httpStatus: reply.status)
                outcomes.append("\(capture.file): \(reply.status) \(error.map { "\($0.code)" } ?? "ok")")
                // Authentication passed: the key was known, the scope this project's, the signature good,
                // and the nonce the first of its credential.
                // (Protected methods only: a public method may judge a signature in its payload.)
                if method.isProtected {
                    #expect(error?.code != .invalidSignature && error?.code != .preconditionFailed, "\(capture.file)")
                }
                if error?.code == .unauthorized, let message = error?.message {
                    #expect(!message.contains("publishable key") && !message.contains("scope"), "\(capture.file)")
                }
                if let expected = Self.expected[capture.file] {
                    #expect(error?.code == expected, "\(capture.file): \(error?.description ?? "ok")")
                    #expect((200..<300).contains(reply.status) == (expected == nil), "\(capture.file)")
                    tally.ran()
                } else {
                    tally.skipped()
                }
            }
            print(outcomes.joined(separator: "\n"))
            tally.report()
            #expect(tally.ran == Self.expected.count)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func capturedNoncesAndCredentialsFollowTheRules(_ kind: TransportKind) async throws {
        try await CoreFixture.with(
            kind, clock: ManualClock(1_796_008_015), project: "abc123",
            publishableKey: Self.publishableKey
        ) { core in
            let captures = Dictionary(uniqueKeysWithValues: try Self.captures().map { ($0.file, $0) })
            func send(_ file: String, tamper: Bool = false) async throws -> WaasError? {
                var request = try #require(captures[file]).request
                if tamper {
                    request.message.body = Array(request.body.dropLast()) + Array(" }".utf8)
                    request.message.setHeader("content-length", String(request.body.count))
                }
                let reply = try await core.transport.send(request)
                return WaasError(wireBody: reply.body, httpStatus: reply.status)
            }
            // A changed body no longer matches its signature, and spends nothing.
            #expect(try await send("03_Waas_CommitVerifier.json", tamper: true)?.code == .invalidSignature)
            // A refused request spends no nonce: CreateWallet is refused the same way twice.
            #expect(try await send("05_Waas_CreateWallet.json")?.code == .unauthorized)
            #expect(try await send("05_Waas_CreateWallet.json")?.code == .unauthorized)
            // CommitVerifier 03 is the first accepted request of its credential, though its nonce is lower
            // than 05's; then 05's nonce is still above it, and the replayed 03 is stale.
            #expect(try await send("03_Waas_CommitVerifier.json") == nil)
            #expect(try await send("03_Waas_CommitVerifier.json")?.code == .preconditionFailed)
            #expect(try await send("14_Waas_CommitVerifier.json") == nil)
            #expect(try await send("14_Waas_CommitVerifier.json")?.code == .preconditionFailed)
            #expect(try await send("17_Waas_CommitVerifier.json") == nil)
            #expect(try await send("17_Waas_CommitVerifier.json")?.code == .preconditionFailed)
            // Per credential: 17's Ethereum credential does not share 03's counter, and UseWallet 19 (a later
            // nonce) still only lacks a signed-in credential.
            #expect(try await send("19_Waas_UseWallet.json")?.code == .unauthorized)
            // The commitments are bound to the captured credentials, with the canonical spelling.
            let dump = try CoreDatabaseDump.read(core.home)
            let committers = Set(
                dump.tables["verifiers"]?.compactMap { row -> String? in
                    if case .text(let credential) = row[2] { return credential }
                    return nil
                } ?? [])
            #expect(committers.count == 3)
            #expect(committers.contains("0x6370eF2f4Db3611D657b90667De398a2Cc2a370C"))
            // The email code was "sent" to the development outbox.
            let outbox = core.home.outboxURL.appendingPathComponent("user@example.com.txt")
            #expect(FileManager.default.fileExists(atPath: outbox.path))
        }
    }
}
