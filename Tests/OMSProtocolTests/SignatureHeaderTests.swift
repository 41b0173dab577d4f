import Foundation
import OMSProtocol
import TestSupport
import Testing
import WalletCrypto

@Suite struct SignatureHeaderTests {
    /// Every captured request's header parses, and the preimage we rebuild from its raw body equals the
    /// one the capture recorded.
    @Test func capturedHeadersParseAndPreimagesMatch() throws {
        var tally = VectorTally("wire-samples (signed)")
        for sample in try WireSample.all() where sample.path.hasPrefix("/v1/Waas/") {
            let header = try SignatureHeader(parsing: try #require(sample.header(SignatureHeader.name)))
            #expect(header.algorithm.isKnown)
            #expect(header.scope == "prj_abc123")
            #expect(header.value == sample.header(SignatureHeader.name))
            let preimage = RequestPreimage.bytes(
                path: sample.path, nonce: header.nonce, scope: header.scope, body: Array(sample.rawBody.utf8))
            #expect(String(decoding: preimage, as: UTF8.self) == sample.reconstructedPreimage)
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 16)  // 19 captures, 3 of them public
    }

    @Test func parsesBareAndQuotedValuesInAnyOrder() throws {
        let header = try SignatureHeader(
            parsing: #"nonce=7, sig="0xab", cred="0x04aa",scope="prj_x", alg="ecdsa-p256-sha256""#)
        #expect(header.nonce == 7)
        #expect(header.algorithm == .p256)
        #expect(header.credential == "0x04aa")
    }

    @Test(arguments: [
        "", "alg=\"ecdsa-p256-sha256\"", #"alg="a", scope="s", cred="c", nonce=-1, sig="x""#,
        #"alg="a", scope="s", cred="c", nonce=1, sig="x", nonce=2"#, #"alg="a, scope="s""#,
        #"alg="a" scope="s", cred="c", nonce=1, sig="x""#,
    ])
    func refusesMalformedHeaders(_ text: String) {
        #expect(throws: WaasError.self) { try SignatureHeader(parsing: text) }
    }

    @Test func unknownAlgorithmIsKeptAsUnknown() throws {
        let header = try SignatureHeader(parsing: #"alg="rsa", scope="s", cred="c", nonce=1, sig="x""#)
        #expect(header.algorithm == .unknown("rsa"))
    }
}

@Suite struct PublishableKeyTests {
    @Test(arguments: [
        ("pk_local_sdbx_abc123_secretpart", "prj_abc123"), ("pk_dev_live_p_k", "prj_p"), ("pk_stg_sdbx_p_k", "prj_p"),
        ("pk_sdbx_proj_key", "prj_proj"), ("pk_live_proj_key", "prj_proj"),
    ])
    func acceptsTheDocumentedForms(_ key: String, _ project: String) throws {
        #expect(try PublishableKey(key).projectId == project)
    }

    @Test(arguments: [
        "", "pk_", "pk_local_sdbx_abc", "pk_local_sdbx__key", "pk_local_sdbx_abc_", "pk_local_test_abc_key",
        "sk_local_sdbx_abc_key", "pk_local_sdbx_a_b_c", "pk_prod_sdbx_a_b",
    ])
    func refusesOtherForms(_ key: String) {
        #expect(throws: InvalidPublishableKey.self) { try PublishableKey(key) }
        #expect(InvalidPublishableKey().description == "Invalid publishableKey.")
    }
}

@Suite struct WaasMethodTests {
    @Test func pathsRoundTrip() {
        #expect(WaasMethod.createWallet.path == "/v1/Waas/CreateWallet")
        #expect(WaasMethod(path: "/v1/WaasPublic/GetJWKS") == .getJWKS)
        #expect(WaasMethod(path: "/v1/Other/X") == nil)
        #expect(WaasMethod(path: "/v1/Waas/") == nil)
        #expect(WaasMethod.status.isProtected == false)
    }

    @Test func errorCodesHaveTheReferenceStatuses() {
        let expected: [(Int, Int)] = [
            (7100, 500), (7200, 400), (7201, 400), (7202, 404), (7203, 400), (7204, 404), (7205, 429), (7206, 412),
            (7207, 401), (7007, 401), (7008, 400), (7009, 404), (7010, 429), (7300, 404), (7301, 404), (7302, 409),
            (7303, 400), (7304, 400), (7305, 400), (7306, 500), (7307, 500), (7308, 404), (7309, 400), (7310, 400),
            (7311, 502), (7312, 400), (7313, 409),
        ]
        for (code, status) in expected {
            #expect(WaasErrorCode.known(code)?.httpStatus == status, "code \(code)")
        }
        #expect(Set(WaasErrorCode.all.map(\.code)).count == WaasErrorCode.all.count)
    }

    @Test func errorBodiesRoundTrip() throws {
        let error = WaasError(.preconditionFailed, "stale nonce")
        let body = try JSONEncoder().encode(error.wireBody)
        let decoded = try #require(WaasError(wireBody: body, httpStatus: 412))
        #expect(decoded == error)
        let unknown = try #require(
            WaasError(wireBody: Data(#"{"error":"New","code":7999,"msg":"m","status":418}"#.utf8), httpStatus: 418))
        #expect(unknown.code.code == 7999 && unknown.code.httpStatus == 418)
    }
}

@Suite struct RequestVerifierTests {
    /// Every signature the official SDK made verifies with our verifier, for both algorithms; a changed body
    /// byte does not.
    @Test func capturedSignaturesVerify() throws {
        var byAlgorithm: [String: Int] = [:]
        for sample in try WireSample.all() where sample.path.hasPrefix("/v1/Waas/") {
            let header = try SignatureHeader(parsing: try #require(sample.header(SignatureHeader.name)))
            let body = Array(sample.rawBody.utf8)
            let preimage = RequestPreimage.bytes(
                path: sample.path, nonce: header.nonce, scope: header.scope, body: body)
            try RequestVerifier.verify(header, preimage: preimage)
            var tampered = body
            tampered[tampered.count / 2] ^= 0x01
            let bad = RequestPreimage.bytes(path: sample.path, nonce: header.nonce, scope: header.scope, body: tampered)
            #expect(throws: WaasError(.invalidSignature, "")) { try RequestVerifier.verify(header, preimage: bad) }
            byAlgorithm[header.algorithm.rawValue, default: 0] += 1
        }
        print("wire-samples verified: \(byAlgorithm)")
        #expect(byAlgorithm["ecdsa-p256-sha256"] == 13)
        #expect(byAlgorithm["ecdsa-p256k-eip191"] == 3)
    }

    @Test func ourSignersProduceVerifiableHeadersOfTheSameShape() throws {
        let signers: [any RequestSigner] = [
            P256RequestSigner(key: try P256.Signing.PrivateKey()),
            EthereumRequestSigner(key: Secp256k1.PrivateKey.generate()),
        ]
        for signer in signers {
            let body = Array(#"{"walletId":"wal_1"}"#.utf8)
            let preimage = RequestPreimage.bytes(path: "/v1/Waas/UseWallet", nonce: 42, scope: "prj_x", body: body)
            let header = SignatureHeader(
                algorithm: signer.algorithm, scope: "prj_x", credential: signer.credentialId, nonce: 42,
                signature: try signer.signature(forPreimage: preimage))
            try RequestVerifier.verify(try SignatureHeader(parsing: header.value), preimage: preimage)
            let otherNonce = RequestPreimage.bytes(path: "/v1/Waas/UseWallet", nonce: 43, scope: "prj_x", body: body)
            #expect(throws: WaasError.self) { try RequestVerifier.verify(header, preimage: otherNonce) }
        }
    }
}
