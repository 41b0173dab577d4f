import Foundation
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

/// Every method the core serves, given bad input, answers with the right code and leaves every table as
/// it was (read back through a separate connection before and after each request).
@Suite struct CoreBadInputTests {
    /// A request to send and the code it must get.
    struct Case {
        var name: String
        var request: WaasHTTPRequest
        var expected: WaasErrorCode
    }

    /// A valid body per method, the bodies that fail to decode, and whether it is protected.
    struct MethodBodies {
        var method: WaasMethod
        var valid: String
        var undecodable: [String]
    }

    static let oversized = #"{"pad":""# + String(repeating: "a", count: (1 << 20) + 1) + #""}"#

    @Test(arguments: TransportKind.allCases)
    func badInputChangesNothing(_ kind: TransportKind) async throws {
        let clock = ManualClock(CoreRulesTests.start)
        try await CoreFixture.with(kind, clock: clock) { core in
            let (owner, _) = try await core.signIn(lifetime: 600)
            let wallet = try await core.createWallet(owner)
            // A commitment of this credential, for CompleteAuth; its request's nonce is the one replayed below.
            let dev = try #require(try await core.service.devIssuer())
            let idToken = try dev.idToken(email: "user@example.com", now: core.service.now)
            let (commitReply, commitRequest) = try await owner.callRaw(
                .commitVerifier,
                body: WaasClient.encodeBody(
                    CommitVerifierRequest(
                        identityType: .oidc, authMode: .idToken,
                        metadata: ["iss": dev.issuer, "aud": DevIssuer.audience],
                        handle: Base64URL.encode(SHA256.hash(data: Array(idToken.utf8))))))
            let commit = try WaasClient.decode(CommitVerifierResponse.self, from: commitReply, method: .commitVerifier)
            let spentNonce = try SignatureHeader(parsing: commitRequest.header(SignatureHeader.name) ?? "").nonce

            let methods: [MethodBodies] = [
                MethodBodies(method: .status, valid: "{}", undecodable: ["{", "[]", "null"]),
                MethodBodies(method: .getJWKS, valid: "{}", undecodable: ["{\"a\":", "\"x\""]),
                MethodBodies(
                    method: .commitVerifier,
                    valid:
                        #"{"identityType":"oidc","authMode":"id-token","metadata":{"iss":"a","aud":"b"},"handle":"\#(Base64URL.encode([UInt8](repeating: 1, count: 32)))"}"#,
                    undecodable: [
                        "{", "{}", #"{"identityType":"oidc","authMode":"id-token","metadata":[],"handle":"x"}"#,
                        #"{"identityType":"oidc","authMode":"id-token","metadata":{},"handle":7}"#,
                    ]),
                MethodBodies(
                    method: .completeAuth,
                    valid:
                        #"{"identityType":"oidc","authMode":"id-token","verifier":"\#(commit.verifier)","answer":"\#(idToken)"}"#,
                    undecodable: [
                        "{", "{}", #"{"identityType":"oidc","authMode":"id-token","verifier":1,"answer":"a"}"#,
                        #"{"identityType":"oidc","authMode":"id-token","verifier":"v","answer":"a","lifetime":"60"}"#,
                    ]),
                MethodBodies(
                    method: .listWallets, valid: "{}",
                    undecodable: ["{", #"{"page":{"limit":"ten"}}"#, #"{"page":[]}"#]),
                MethodBodies(
                    method: .createWallet, valid: #"{"networkFamily":"evm"}"#,
                    undecodable: ["{", "[]", #"{"networkFamily":5}"#, #"{"networkFamily":"evm","reference":false}"#]),
                MethodBodies(
                    method: .useWallet, valid: #"{"walletId":"\#(wallet.id)"}"#,
                    undecodable: ["{", "{}", #"{"walletId":5}"#]),
                MethodBodies(
                    method: .getIDToken, valid: #"{"walletId":"\#(wallet.id)"}"#,
                    undecodable: [
                        "{", "{}", #"{"walletId":"\#(wallet.id)","ttlSeconds":"600"}"#, #"{"walletId":null}"#,
                    ]),
            ]

            let stranger = try core.newClient()
            // A fresh source each time: a source raises an equal nonce by one on its second use.
            var replaying: WaasClient { owner.signing(with: owner.signer!, nonces: NonceSource { spentNonce }) }
            var ran = 0
            func check(_ cases: [Case]) async throws {
                for item in cases {
                    let before = try CoreDatabaseDump.read(core.home)
                    let oversizedOverHTTP = item.name.hasSuffix("oversized") && kind == .http
                    guard let reply = try await core.send(item.request, mayBeCutShort: oversizedOverHTTP) else {
                        #expect(try CoreDatabaseDump.read(core.home).changes(since: before) == [], "\(item.name)")
                        ran += 1
                        continue
                    }
                    let body = try? JSONDecoder().decode(WaasError.WireBody.self, from: Data(reply.body))
                    #expect(body?.code == item.expected.code, "\(item.name): got \(reply.status) \(body?.msg ?? "")")
                    // The status line is the body's; over HTTP an oversized body is 413 before the core sees it.
                    #expect(reply.status == body?.status, "\(item.name)")
                    #expect(reply.status == (oversizedOverHTTP ? 413 : item.expected.httpStatus), "\(item.name)")
                    let after = try CoreDatabaseDump.read(core.home)
                    #expect(after.changes(since: before) == [], "\(item.name) changed the database")
                    ran += 1
                }
            }

            for entry in methods {
                let method = entry.method
                let name = method.name
                var cases: [Case] = []
                func request(_ body: String, _ client: WaasClient) throws -> WaasHTTPRequest {
                    try client.makeRequest(method, body: Array(body.utf8))
                }
                for body in entry.undecodable {
                    cases.append(
                        Case(name: "\(name) \(body)", request: try request(body, owner), expected: .invalidRequest))
                }
                cases.append(
                    Case(
                        name: "\(name) oversized", request: try request(Self.oversized, owner),
                        expected: .invalidRequest))
                var unknownKey = try request(entry.valid, owner)
                unknownKey.message.setHeader("Api-Key", "pk_local_sdbx_test_unknown")
                cases.append(Case(name: "\(name) unknown key", request: unknownKey, expected: .unauthorized))
                if method.isProtected {
                    var wrongSignature = try request(entry.valid, owner)
                    wrongSignature.message.body = Array((entry.valid + " ").utf8)
                    cases.append(
                        Case(name: "\(name) wrong signature", request: wrongSignature, expected: .invalidSignature))
                    var otherScope = try request(entry.valid, owner)
                    let header = try SignatureHeader(parsing: otherScope.header(SignatureHeader.name) ?? "")
                    var moved = header
                    moved.scope = "prj_other"
                    otherScope.message.setHeader(SignatureHeader.name, moved.value)
                    cases.append(Case(name: "\(name) other scope", request: otherScope, expected: .unauthorized))
                    var unsigned = try request(entry.valid, owner)
                    unsigned.message.headers.removeAll { $0.name == SignatureHeader.name }
                    cases.append(Case(name: "\(name) unsigned", request: unsigned, expected: .unauthorized))
                    cases.append(
                        Case(
                            name: "\(name) replayed nonce", request: try request(entry.valid, replaying),
                            expected: .preconditionFailed))
                }
                switch method {
                case .listWallets, .createWallet, .useWallet, .getIDToken:
                    cases.append(
                        Case(
                            name: "\(name) unknown credential", request: try request(entry.valid, stranger),
                            expected: .unauthorized))
                case .completeAuth:
                    // A commitment is bound to the credential that made it.
                    cases.append(
                        Case(
                            name: "\(name) other credential", request: try request(entry.valid, stranger),
                            expected: .accessError))
                default: break
                }
                try await check(cases)
            }
            // Other codes on valid shapes.
            try await check([
                Case(
                    name: "UseWallet unknown wallet",
                    request: try owner.makeRequest(.useWallet, body: Array(#"{"walletId":"wal_x"}"#.utf8)),
                    expected: .walletNotFound),
                Case(
                    name: "CreateWallet long reference",
                    request: try owner.makeRequest(
                        .createWallet,
                        body: Array(
                            #"{"networkFamily":"evm","reference":"\#(String(repeating: "r", count: 129))"}"#.utf8)),
                    expected: .invalidRequest),
                Case(
                    name: "CompleteAuth unknown verifier",
                    request: try owner.makeRequest(
                        .completeAuth,
                        body: Array(
                            #"{"identityType":"oidc","authMode":"id-token","verifier":"vrf_x","answer":"a"}"#.utf8)),
                    expected: .invalidRequest),
            ])
            // An expired credential: past its 600 s lifetime and the 60 s leeway (at exactly 660 s it still works).
            clock.advance(by: 660)
            #expect(try await core.error(owner, .listWallets, ListWalletsRequest()) == nil)
            clock.advance(by: 1)
            var expired: [Case] = []
            for entry in methods where [.listWallets, .createWallet, .useWallet, .getIDToken].contains(entry.method) {
                expired.append(
                    Case(
                        name: "\(entry.method.name) expired credential",
                        request: try owner.makeRequest(entry.method, body: Array(entry.valid.utf8)),
                        expected: .keyExpired))
            }
            try await check(expired)
            print("bad input on \(kind): \(ran) requests refused, database unchanged after each")
            #expect(ran >= 70)
        }
    }
}
