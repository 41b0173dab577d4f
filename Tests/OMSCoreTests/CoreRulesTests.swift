import Foundation
import HomeLayout
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

/// One test per rule of OMS-REFERENCE that sign-in, wallets and ID tokens touch, each run through the
/// embedded core and through `core serve` over HTTP.
@Suite struct CoreRulesTests {
    /// A fixed start, so expiries are exact.
    static let start: Int64 = 1_796_008_015

    // MARK: Publishable key forms

    @Test(arguments: TransportKind.allCases)
    func publishableKeyUnknownOrMalformedIsUnauthorized(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let status = try await core.publicClient.call(.status, Empty(), as: StatusResponse.self)
            #expect(status.env == "development")
            // Well-formed but not this core's, another key of the same project, and not a key at all.
            for text in ["pk_local_sdbx_test_otherkey", "pk_sdbx_test_x", "pk_live_test_abc", "nope", "pk_local_sdbx_"]
            {
                let request = WaasHTTPRequest(
                    path: WaasMethod.status.path, headers: [("Content-Type", "application/json"), ("Api-Key", text)],
                    body: Array("{}".utf8))
                let reply = try await core.transport.send(request)
                #expect(reply.status == 401, "\(text)")
                #expect(WaasError(wireBody: reply.body, httpStatus: reply.status)?.code == .unauthorized)
            }
            let missing = try await core.transport.send(
                WaasHTTPRequest(path: WaasMethod.status.path, headers: [], body: Array("{}".utf8)))
            #expect(WaasError(wireBody: missing.body, httpStatus: missing.status)?.code == .unauthorized)
            // A signed request under an unknown key is refused before its signature matters.
            let stranger = WaasClient(
                transport: core.transport, publishableKey: try PublishableKey("pk_local_sdbx_test_otherkey"),
                signer: P256RequestSigner(key: try P256.Signing.PrivateKey()))
            #expect(try await core.error(stranger, .listWallets, ListWalletsRequest())?.code == .unauthorized)
        }
    }

    @Test func publishableKeyFormsParse() throws {
        let valid = [
            ("pk_local_sdbx_abc123_secretpart", "prj_abc123"), ("pk_dev_live_p_k", "prj_p"),
            ("pk_stg_sdbx_p_k", "prj_p"), ("pk_sdbx_p_k", "prj_p"), ("pk_live_p_k", "prj_p"),
        ]
        for (text, project) in valid { #expect(try PublishableKey(text).projectId == project) }
        let invalid = [
            "pk_local_sdbx_abc", "pk_local_sdbx_a_b_c", "pk_local_sdbx__k", "pk_local_sdbx_p_", "pk_test_p_k",
            "sk_local_sdbx_p_k", "pk_local_p_k", "",
        ]
        for text in invalid {
            #expect(throws: InvalidPublishableKey.self, "\(text)") { try PublishableKey(text) }
        }
        #expect(InvalidPublishableKey().description == "Invalid publishableKey.")
        // A chosen key must belong to the project it is given for.
        let home = WalletHome(
            url: FileManager.default.temporaryDirectory.appendingPathComponent("walletops-core-\(UUID().uuidString)"))
        defer { try? FileManager.default.removeItem(at: home.url) }
        #expect(throws: CoreHomeError.self) {
            try WaasService.initialize(home: home, project: "abc", publishableKey: "pk_local_sdbx_other_k")
        }
    }

    // MARK: Session lifetimes

    @Test(arguments: TransportKind.allCases)
    func sessionLifetimeDefaultAndRange(_ kind: TransportKind) async throws {
        let clock = ManualClock(Self.start)
        try await CoreFixture.with(kind, clock: clock) { core in
            let (_, defaulted) = try await core.signIn()
            #expect(RFC3339.parse(defaulted.credential.expiresAt) == Self.start + 604_800)
            for lifetime in [1, 2_592_000] {
                let (_, auth) = try await core.signIn(lifetime: lifetime)
                #expect(RFC3339.parse(auth.credential.expiresAt) == Self.start + Int64(lifetime))
            }
            for lifetime in [0, 2_592_001, -1] {
                let client = try core.newClient()
                let error = try await core.error {
                    _ = try await CoreFixture.signIn(
                        client, service: core.service, email: "x@example.com", lifetime: lifetime)
                }
                #expect(error?.code == .invalidRequest, "lifetime \(lifetime)")
                // The refused credential did not sign in.
                #expect(try await core.error(client, .listWallets, ListWalletsRequest())?.code == .unauthorized)
            }
        }
    }

    // MARK: Pages

    @Test(arguments: TransportKind.allCases)
    func pagesOfListWallets(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let (client, _) = try await core.signIn()
            var created: [String] = []
            for index in 0..<120 {
                created.append(try await core.createWallet(client, index % 3 == 0 ? .solana : .evm).id)
            }
            func list(_ page: Page?) async throws -> ListWalletsResponse {
                try await client.call(.listWallets, ListWalletsRequest(page: page), as: ListWalletsResponse.self)
            }
            let first = try await list(nil)
            #expect(first.wallets.map(\.id) == Array(created.prefix(50)))
            let cursor = try #require(first.page?.cursor)
            // Opaque: neither a wallet id, an offset nor a row number a client could compute.
            #expect(!created.contains(cursor) && Int(cursor) == nil && !cursor.contains(created[49]))
            #expect(try await list(Page(limit: 100)).wallets.count == 100)
            #expect(try await list(Page(limit: 1)).wallets.map(\.id) == [created[0]])
            for limit in [0, 101, -1] {
                #expect(
                    try await core.error(client, .listWallets, ListWalletsRequest(page: Page(limit: limit)))?.code
                        == .invalidRequest)
            }
            let forged = Base64URL.encode(Array("a:3".utf8))
            for bad in ["garbage!", "bm9wZQ", forged, Base64URL.encode(Array("w:-4".utf8)), "w:3"] {
                let error = try await core.error(client, .listWallets, ListWalletsRequest(page: Page(cursor: bad)))
                #expect(error?.code == .invalidRequest, "cursor \(bad)")
            }
            // A blank cursor starts over, as iteration ends on one.
            #expect(try await list(Page(cursor: " ")).wallets.map(\.id) == Array(created.prefix(50)))
            for limit in [nil, 7, 100] {
                var seen: [String] = []
                var page: Page? = limit.map { Page(limit: $0) }
                var pages = 0
                while true {
                    let reply = try await list(page)
                    seen += reply.wallets.map(\.id)
                    pages += 1
                    guard let next = reply.page?.cursor, !next.isEmpty else { break }
                    page = Page(limit: limit, cursor: next)
                }
                #expect(seen == created, "limit \(limit.map(String.init) ?? "default")")
                #expect(pages == (120 + (limit ?? 50) - 1) / (limit ?? 50))
            }
            // Another account's cursor walks only its own wallets.
            let (other, _) = try await core.signIn(email: "other@example.com")
            let mine = try await other.call(
                .listWallets, ListWalletsRequest(page: Page(cursor: cursor)), as: ListWalletsResponse.self)
            #expect(mine.wallets.isEmpty && mine.page == nil)
        }
    }

    // MARK: ID-token claims and limits

    @Test(arguments: TransportKind.allCases)
    func idTokenTTLAndSessionCap(_ kind: TransportKind) async throws {
        let clock = ManualClock(Self.start)
        try await CoreFixture.with(kind, clock: clock) { core in
            let (client, _) = try await core.signIn()
            let wallet = try await core.createWallet(client)
            let keys = try await core.jwks()
            func token(_ client: WaasClient, ttl: Int?) async throws -> JWT {
                let reply = try await client.call(
                    .getIDToken, GetIDTokenRequest(walletId: wallet.id, ttlSeconds: ttl), as: GetIDTokenResponse.self)
                return try JWT.verify(
                    reply.idToken, keys: keys,
                    validation: JWT.Validation(
                        issuer: core.service.issuer, audience: core.project.id,
                        now: Date(timeIntervalSince1970: TimeInterval(clock.now()))))
            }
            for (ttl, lifetime) in [(nil, 600), (60, 60), (86_400, 86_400)] as [(Int?, Int64)] {
                let jwt = try await token(client, ttl: ttl)
                #expect(jwt.claims["exp"]?.doubleValue == Double(Self.start + lifetime))
                #expect(jwt.claims["iat"]?.doubleValue == Double(Self.start))
            }
            for ttl in [59, 86_401, 0] {
                let error = try await core.error(
                    client, .getIDToken, GetIDTokenRequest(walletId: wallet.id, ttlSeconds: ttl))
                #expect(error?.code == .invalidRequest, "ttl \(ttl)")
            }
            // Never past the session: a 120 s session asked for 600 s gets the session's expiry.
            let (short, auth) = try await core.signIn(email: "short@example.com", lifetime: 120)
            let own = try await core.createWallet(short)
            let capped = try await short.call(
                .getIDToken, GetIDTokenRequest(walletId: own.id, ttlSeconds: 600), as: GetIDTokenResponse.self)
            let claims = try JWT.decodeUnverified(capped.idToken).claims
            #expect(claims["exp"]?.doubleValue == Double(RFC3339.parse(auth.credential.expiresAt) ?? 0))
            #expect(claims["exp"]?.doubleValue == Double(Self.start + 120))
            // Another account's wallet is not found.
            #expect(
                try await core.error(short, .getIDToken, GetIDTokenRequest(walletId: wallet.id))?.code
                    == .walletNotFound)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func idTokenClaims(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let (client, _) = try await core.signIn(email: "Verified@Example.com")
            let wallet = try await core.createWallet(client)
            let keys = try await core.jwks()
            func claims(_ client: WaasClient, _ walletId: String, _ custom: [String: JSONValue]? = nil) async throws
                -> JSONObject
            {
                let reply = try await client.call(
                    .getIDToken, GetIDTokenRequest(walletId: walletId, customClaims: custom),
                    as: GetIDTokenResponse.self)
                let jwt = try JWT.verify(
                    reply.idToken, keys: keys,
                    validation: JWT.Validation(issuer: core.service.issuer, audience: core.project.id, now: Date()))
                #expect(jwt.jws.header["alg"]?.stringValue == "ES256")
                #expect(jwt.jws.header["kid"]?.stringValue == keys.keys.first?.kid)
                return jwt.claims
            }
            let first = try await claims(client, wallet.id, ["role": "member", "tier": .int(2)])
            let second = try await claims(client, wallet.id)
            #expect(first["sub"]?.stringValue == wallet.id && first["aud"]?.stringValue == core.project.id)
            #expect(first["wallet_address"]?.stringValue == wallet.address)
            #expect(first["wallet_type"]?.stringValue == "ethereum")
            #expect(first["email"]?.stringValue == "verified@example.com")
            #expect(first["role"]?.stringValue == "member" && first["tier"]?.doubleValue == 2)
            let jti = try #require(first["jti"]?.stringValue)
            #expect(!jti.isEmpty && jti != second["jti"]?.stringValue)
            #expect(first["iat"]?.doubleValue != nil && second["role"] == nil)

            // Reserved names, the wallet_ prefix and more than 4 KiB are refused.
            for name in ["iss", "sub", "aud", "exp", "nbf", "iat", "jti", "wallet_address", "wallet_x", ""] {
                let error = try await core.error(
                    client, .getIDToken, GetIDTokenRequest(walletId: wallet.id, customClaims: [name: "x"]))
                #expect(error?.code == .invalidRequest, "claim '\(name)'")
            }
            let fits = String(repeating: "a", count: 4_000)
            _ = try await claims(client, wallet.id, ["note": .string(fits)])
            let tooBig = String(repeating: "a", count: 4_097)
            let error = try await core.error(
                client, .getIDToken, GetIDTokenRequest(walletId: wallet.id, customClaims: ["note": .string(tooBig)]))
            #expect(error?.code == .invalidRequest)

            // An identity without a verified email gets no email claim.
            let provider = try P256.Signing.PrivateKey()
            let issuer = "https://id.example"
            try await core.service.trustIssuer(
                project: core.project.id, issuer: issuer, audience: "app",
                jwks: JWKSet(keys: [JWK(p256PublicKey: provider.publicKey, kid: "p1", alg: "ES256", use: "sig")]))
            let idToken = try JWT.encode(
                claims: [
                    "iss": .string(issuer), "sub": "user-9", "aud": "app", "iat": .int(core.service.now),
                    "exp": .int(core.service.now + 600), "email": "unverified@example.com", "email_verified": false,
                ], privateKey: provider, keyID: "p1")
            let unverified = try core.newClient()
            let commit = try await unverified.call(
                .commitVerifier,
                CommitVerifierRequest(
                    identityType: .oidc, authMode: .idToken, metadata: ["iss": issuer, "aud": "app"],
                    handle: Base64URL.encode(SHA256.hash(data: Array(idToken.utf8)))), as: CommitVerifierResponse.self)
            let auth = try await unverified.call(
                .completeAuth,
                CompleteAuthRequest(
                    identityType: .oidc, authMode: .idToken, verifier: commit.verifier, answer: idToken),
                as: CompleteAuthResponse.self)
            #expect(auth.email == nil && auth.identity.sub == "user-9")
            let theirs = try await core.createWallet(unverified)
            let plain = try await claims(unverified, theirs.id)
            #expect(plain["email"] == nil && plain["sub"]?.stringValue == theirs.id)
        }
    }

    // MARK: Nonces

    @Test(arguments: TransportKind.allCases)
    func noncesStrictlyIncreasePerCredential(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let (client, _) = try await core.signIn()
            let body = try WaasClient.encodeBody(ListWalletsRequest())
            let request = try client.makeRequest(.listWallets, body: body)
            #expect(try await core.transport.send(request).status == 200)
            // The same request again: its nonce is spent.
            let replay = try await core.transport.send(request)
            let error = try #require(WaasError(wireBody: replay.body, httpStatus: replay.status))
            #expect(error.code == .preconditionFailed && error.code.code == 7206 && replay.status == 412)
            // The same key spelt in upper-case hex is the same credential, not a fresh counter.
            var shouted = request
            let header = try SignatureHeader(parsing: try #require(request.header(SignatureHeader.name)))
            var upper = header
            upper.credential = "0x" + header.credential.dropFirst(2).uppercased()
            shouted.message.setHeader(SignatureHeader.name, upper.value)
            let shoutedReply = try await core.transport.send(shouted)
            #expect(
                WaasError(wireBody: shoutedReply.body, httpStatus: shoutedReply.status)?.code == .preconditionFailed)

            // A fixed nonce source: lower and equal nonces are refused, higher ones accepted (the client's
            // resend of a stale nonce is turned off: this is the core's rule under test).
            let key = try P256.Signing.PrivateKey()
            let signer = P256RequestSigner(key: key)
            func at(_ nonce: UInt64) -> WaasClient {
                client.signing(with: signer, nonces: NonceSource { nonce }).resendingStaleNonces(attempts: 1)
            }
            _ = try await CoreFixture.signIn(at(1_000), service: core.service, email: "n@example.com")
            // signIn used 1000 and 1001 (the source raises an equal nonce by one).
            for nonce: UInt64 in [999, 1_001, 1, 0] {
                #expect(
                    try await core.error(at(nonce), .listWallets, ListWalletsRequest())?.code == .preconditionFailed,
                    "nonce \(nonce)")
            }
            for nonce: UInt64 in [1_002, 1_003, 5_000, 5_001] {
                #expect(try await core.error(at(nonce), .listWallets, ListWalletsRequest()) == nil, "nonce \(nonce)")
            }
            #expect(try await core.error(at(5_000), .listWallets, ListWalletsRequest())?.code == .preconditionFailed)
            // Nonces are per credential: another credential starts low.
            let (fresh, _) = try await core.signIn(email: "n@example.com")
            let low = fresh.signing(with: fresh.signer!, nonces: NonceSource { 10 }).resendingStaleNonces(attempts: 1)
            #expect(try await core.error(low, .listWallets, ListWalletsRequest())?.code == .preconditionFailed)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func ethereumKeyCredentialsSignInAndKeepOneSpelling(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            // The official SDK can sign in with an Ethereum-key signer (wire-samples 17-19).
            let key = Secp256k1.PrivateKey.generate()
            let client = core.publicClient.signing(with: EthereumRequestSigner(key: key))
            let auth = try await CoreFixture.signIn(client, service: core.service, email: "eth@example.com")
            #expect(auth.credential.credentialId == key.ethereumAddress.checksummed)
            let wallet = try await core.createWallet(client)
            let request = try client.makeRequest(
                .useWallet, body: WaasClient.encodeBody(UseWalletRequest(walletId: wallet.id)))
            #expect(try await core.transport.send(request).status == 200)
            // The same request with the address in lower case is the same credential: a replay.
            var lowered = request
            var header = try SignatureHeader(parsing: try #require(request.header(SignatureHeader.name)))
            header.credential = header.credential.lowercased()
            lowered.message.setHeader(SignatureHeader.name, header.value)
            let reply = try await core.transport.send(lowered)
            #expect(WaasError(wireBody: reply.body, httpStatus: reply.status)?.code == .preconditionFailed)
        }
    }

    // MARK: Error codes and HTTP statuses

    @Test(arguments: TransportKind.allCases)
    func errorCodesCarryTheirHTTPStatus(_ kind: TransportKind) async throws {
        let clock = ManualClock(Self.start)
        try await CoreFixture.with(kind, clock: clock) { core in
            let (client, _) = try await core.signIn(lifetime: 100)
            let json = [("Content-Type", "application/json")]
            func signed(_ method: WaasMethod, _ body: String, _ client: WaasClient = client) throws -> WaasHTTPRequest {
                try client.makeRequest(method, body: Array(body.utf8))
            }
            var tamperedSignature = try signed(.listWallets, "{}")
            tamperedSignature.message.body = Array(#"{"page":{"limit":2}}"#.utf8)
            let spent = try signed(.listWallets, "{}")
            _ = try await core.transport.send(spent)
            let oversized = try signed(.listWallets, #"{"x":""# + String(repeating: "a", count: 1 << 20) + #""}"#)
            var cases: [(String, WaasHTTPRequest, WaasErrorCode)] = [
                ("unknown key", WaasHTTPRequest(path: "/v1/WaasPublic/Status", headers: json, body: []), .unauthorized),
                ("not JSON", try signed(.listWallets, "{"), .invalidRequest),
                ("bad signature", tamperedSignature, .invalidSignature),
                ("spent nonce", spent, .preconditionFailed),
                ("no such wallet", try signed(.useWallet, #"{"walletId":"wal_nope"}"#), .walletNotFound),
                (
                    "no such sign-in",
                    try signed(
                        .commitVerifier, #"{"identityType":"phone","authMode":"otp","metadata":{},"handle":"1"}"#),
                    .authMethodUnavailable
                ),
                (
                    "unknown verifier",
                    try signed(
                        .completeAuth, #"{"identityType":"oidc","authMode":"id-token","verifier":"vrf_x","answer":"a"}"#
                    ),
                    .invalidRequest
                ),
                (
                    "unknown network family", try signed(.createWallet, #"{"networkFamily":"cosmos"}"#),
                    .unsupportedWalletType
                ),
                ("oversized body", oversized, .invalidRequest),
            ]
            for index in cases.indices where cases[index].0 == "unknown key" {
                cases[index].1.message.setHeader("Api-Key", "pk_local_sdbx_test_unknown")
            }
            for (name, request, expected) in cases {
                guard let reply = try await core.send(request, mayBeCutShort: name == "oversized body" && kind == .http)
                else { continue }
                let body = try JSONDecoder().decode(WaasError.WireBody.self, from: Data(reply.body))
                #expect(body.code == expected.code && body.error == expected.name, "\(name): \(body.msg)")
                // The status line and the body agree; over HTTP an oversized body is 413 before the core sees it.
                #expect(reply.status == body.status, "\(name)")
                let status = name == "oversized body" && kind == .http ? 413 : expected.httpStatus
                #expect(reply.status == status, "\(name)")
            }
            // An expired session: past its lifetime and the 60 s leeway.
            clock.advance(by: 100 + 61)
            let expired = try await core.transport.send(try signed(.listWallets, "{}"))
            #expect(expired.status == 400)
            #expect(WaasError(wireBody: expired.body, httpStatus: expired.status)?.code == .keyExpired)
        }
    }

    // MARK: Key rotation

    @Test(arguments: TransportKind.allCases)
    func keyRotationKeepsThePreviousKey(_ kind: TransportKind) async throws {
        // A fixed clock: both rotations happen within one second, so their timestamps tie.
        try await CoreFixture.with(kind, clock: ManualClock(Self.start)) { core in
            let (client, _) = try await core.signIn()
            let wallet = try await core.createWallet(client)
            func token() async throws -> String {
                try await client.call(.getIDToken, GetIDTokenRequest(walletId: wallet.id), as: GetIDTokenResponse.self)
                    .idToken
            }
            let validation = JWT.Validation(
                issuer: core.service.issuer, audience: core.project.id,
                now: Date(timeIntervalSince1970: TimeInterval(Self.start)))
            let old = try await token()
            let before = try await core.jwks()
            #expect(before.keys.count == 1)
            let newKid = try await core.service.rotateSigningKey()
            let after = try await core.jwks()
            #expect(after.keys.count == 2)
            #expect(after.keys.first?.kid == newKid && after.keys.last?.kid == before.keys.first?.kid)
            _ = try JWT.verify(old, keys: after, validation: validation)
            let new = try await token()
            #expect(try JWT.decodeUnverified(new).jws.header["kid"]?.stringValue == newKid)
            _ = try JWT.verify(new, keys: after, validation: validation)
            #expect(throws: JOSEError.self) { try JWT.verify(new, keys: before, validation: validation) }
            // Only one previous key is kept: two rotations later the first token's key is gone.
            _ = try await core.service.rotateSigningKey()
            let later = try await core.jwks()
            #expect(later.keys.count == 2 && later.key(kid: before.keys[0].kid ?? "") == nil)
            #expect(throws: JOSEError.self) { try JWT.verify(old, keys: later, validation: validation) }
            _ = try JWT.verify(new, keys: later, validation: validation)
        }
    }
}
