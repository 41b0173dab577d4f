import OMSProtocol

extension WaasService {
    static let publicMethods: [String: Method] = [
        WaasMethod.status.path: method { (service, call, _: Empty) in service.status(call) },
        WaasMethod.getJWKS.path: method { (service, _, _: Empty) in try await service.getJWKS() },
        WaasMethod.getTrustedAudiences.path: method { (service, call, request: GetTrustedAudiencesRequest) in
            GetTrustedAudiencesResponse(
                audiences: try await service.trustedAudiences(project: call.project.id, issuer: request.issuer))
        },
    ]

    /// The PCR0 a development (debug-mode) enclave reports: 48 zero bytes.
    static let developmentPCR0 = String(repeating: "0", count: 96)

    func status(_ call: Call) -> StatusResponse {
        StatusResponse(ver: OMSCoreInfo.version, env: call.project.environment.rawValue, pcr0: Self.developmentPCR0)
    }

    func getJWKS() async throws -> GetJWKSResponse {
        GetJWKSResponse(keys: try await store.read { [tokens] db in try tokens.jwks(db) })
    }

    /// `/.well-known/jwks.json`: the issuer's keys as a standard JWK Set.
    public func wellKnownJWKS() async throws -> [UInt8] {
        try WaasClient.encodeBody(try await getJWKS())
    }

    /// `/.well-known/openid-configuration`: enough discovery for verifiers to find the keys.
    public func wellKnownOpenIDConfiguration() throws -> [UInt8] {
        struct Discovery: Encodable {
            var issuer: String
            var jwks_uri: String
            var id_token_signing_alg_values_supported = ["ES256"]
            var subject_types_supported = ["public"]
            var response_types_supported = ["id_token"]
        }
        return try WaasClient.encodeBody(Discovery(issuer: issuer, jwks_uri: issuer + "/.well-known/jwks.json"))
    }
}
