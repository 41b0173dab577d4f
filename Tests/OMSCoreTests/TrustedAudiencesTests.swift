import Foundation
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

/// `WaasPublic/GetTrustedAudiences`: the project's trusted audiences of an issuer, the same in process and
/// over HTTP, answered only for a known `Api-Key`.
@Suite struct TrustedAudiencesTests {
    @Test(arguments: TransportKind.allCases)
    func theProjectsAudiencesOfAnIssuerAreAnsweredSorted(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let issuer = "https://app.example"
            let key = try P256.Signing.PrivateKey()
            let jwks = JWKSet(keys: [JWK(p256PublicKey: key.publicKey, kid: "app-1", alg: "ES256", use: "sig")])
            func audiences(_ issuer: String) async throws -> [String] {
                try await core.publicClient.call(
                    .getTrustedAudiences, GetTrustedAudiencesRequest(issuer: issuer),
                    as: GetTrustedAudiencesResponse.self
                ).audiences
            }
            #expect(try await audiences(issuer) == [])
            for audience in ["web-users", "app-users"] {
                try await core.service.trustIssuer(
                    project: core.project.id, issuer: issuer, audience: audience, jwks: jwks)
            }
            #expect(try await audiences(issuer) == ["app-users", "web-users"])
            #expect(try await audiences("https://other.example") == [])
        }
    }

    @Test func anUnknownPublishableKeyIsRefused() async throws {
        try await CoreFixture.with { core in
            let key = try P256.Signing.PrivateKey()
            try await core.service.trustIssuer(
                project: core.project.id, issuer: "https://app.example", audience: "app-users",
                jwks: JWKSet(keys: [JWK(p256PublicKey: key.publicKey, kid: "app-1", alg: "ES256", use: "sig")]))
            let unknown = WaasClient(
                transport: core.transport, publishableKey: try PublishableKey("pk_local_sdbx_other_key"))
            let error = await #expect(throws: WaasError.self) {
                _ = try await unknown.call(
                    .getTrustedAudiences, GetTrustedAudiencesRequest(issuer: "https://app.example"),
                    as: GetTrustedAudiencesResponse.self)
            }
            #expect(error?.code == .unauthorized)
        }
    }
}
