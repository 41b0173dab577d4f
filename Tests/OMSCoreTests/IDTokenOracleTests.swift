import Foundation
import OMSCore
import OMSProtocol
import TestSupport
import Testing
import WalletCrypto

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ID tokens from the served core checked by an independent verifier: PyJWT, with the JWKS fetched
/// over HTTP from the core's `/.well-known/jwks.json`, as a relying party would. Tampered, expired,
/// wrong-audience and `alg: none` tokens are refused by PyJWT and by `JWT.verify` alike.
@Suite struct IDTokenOracleTests {
    static let script = """
        import json, sys, jwt
        d = json.load(sys.stdin)
        keys = {k["kid"]: jwt.PyJWK.from_dict(k) for k in d["jwks"]["keys"]}
        for case in d["cases"]:
            try:
                kid = jwt.get_unverified_header(case["token"]).get("kid")
                key = keys[kid].key if kid in keys else next(iter(keys.values())).key
                claims = jwt.decode(case["token"], key, algorithms=["ES256"], audience=case["audience"],
                                    issuer=d["issuer"], options={"require": ["exp", "iat", "iss", "sub", "aud"]})
                print(case["name"], "ok", claims["sub"])
            except Exception as error:
                print(case["name"], "refused", type(error).__name__)
        """

    @Test func servedTokensVerifyWithPyJWTAndForgeriesDoNot() async throws {
        let clock = ManualClock()
        try await CoreFixture.with(.http, clock: clock) { core in
            let server = try #require(core.server)
            let (client, _) = try await core.signIn()
            let wallet = try await core.createWallet(client)
            func token() async throws -> String {
                try await client.call(
                    .getIDToken, GetIDTokenRequest(walletId: wallet.id, customClaims: ["role": "ops"]),
                    as: GetIDTokenResponse.self
                ).idToken
            }
            let valid = try await token()
            // Issued in the past: its exp (now - 10,000 + 600) has gone by.
            clock.advance(by: -10_000)
            let expired = try await token()
            clock.advance(by: 10_000)
            let parts = valid.split(separator: ".").map(String.init)
            var claims = try JWT.decodeUnverified(valid).claims
            claims["sub"] = "wal_someone_else"
            let tampered = [parts[0], Base64URL.encode(JSONValue.object(claims).serializedBytes()), parts[2]]
                .joined(separator: ".")
            let none = [
                Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)), parts[1], "",
            ].joined(separator: ".")

            // The JWKS as a relying party fetches it.
            let url = URL(string: server.baseURL.absoluteString + "/.well-known/jwks.json")!
            let (data, response) = try await URLSession.shared.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let jwksJSON = try JSONSerialization.jsonObject(with: data)
            let jwks = try JWKSet(jsonString: String(decoding: data, as: UTF8.self))
            #expect(jwks.keys.count == 1 && jwks.keys[0].alg == "ES256")

            let audience = core.project.id
            let cases: [(name: String, token: String, audience: String, accepted: Bool)] = [
                ("valid", valid, audience, true), ("tampered", tampered, audience, false),
                ("expired", expired, audience, false), ("wrong-audience", valid, "prj_other", false),
                ("alg-none", none, audience, false),
            ]
            let input: [String: Any] = [
                "jwks": jwksJSON, "issuer": core.service.issuer,
                "cases": cases.map { ["name": $0.name, "token": $0.token, "audience": $0.audience] },
            ]
            let output = try PythonOracle.run(
                Self.script, stdin: String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self))
            let verdicts = Dictionary(
                uniqueKeysWithValues: output.split(separator: "\n").map { line in
                    let fields = line.split(separator: " ").map(String.init)
                    return (fields[0], Array(fields.dropFirst()))
                })
            print("PyJWT verdicts:\n\(output)")
            #expect(verdicts.count == cases.count)
            for item in cases {
                let verdict = try #require(verdicts[item.name])
                #expect(verdict.first == (item.accepted ? "ok" : "refused"), "PyJWT on \(item.name): \(verdict)")
                let ours = Result {
                    try JWT.verify(
                        item.token, keys: jwks,
                        validation: JWT.Validation(issuer: core.service.issuer, audience: item.audience, now: Date()))
                }
                switch ours {
                case .success(let jwt):
                    #expect(item.accepted, "JWT.verify accepted \(item.name)")
                    #expect(jwt.subject == wallet.id && verdict.last == wallet.id)
                case .failure(let error):
                    #expect(!item.accepted, "JWT.verify refused \(item.name): \(error)")
                }
            }
        }
    }
}
