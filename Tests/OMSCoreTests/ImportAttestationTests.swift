import Foundation
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

/// The client's checks of attested replies: each forged or bent document is refused with
/// attestationVerificationFailed (not retryable), the ImportWallet request is never sent, and the core
/// records no import.
@Suite struct ImportAttestationTests {
    /// Runs an import that must be refused at the recipient key's attestation.
    func expectRefused(
        _ harness: ImportHarness, verifier: AttestationVerifier? = nil, _ expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let key = Secp256k1.PrivateKey.generate()
        do {
            _ = try await harness.client.importWallet(
                privateKey: key.secretBytes, networkFamily: .evm, verifier: verifier ?? harness.verifier)
            Issue.record("the import was not refused", sourceLocation: sourceLocation)
        } catch let error as WaasClientError {
            #expect(error.code == .attestationVerificationFailed, "\(error)", sourceLocation: sourceLocation)
            #expect(!error.isRetryable, sourceLocation: sourceLocation)
            #expect(error.message.contains(expected), "\(error.message)", sourceLocation: sourceLocation)
        }
        #expect(harness.wire.count(.getRecipientKey) == 1, sourceLocation: sourceLocation)
        #expect(harness.wire.count(.importWallet) == 0, sourceLocation: sourceLocation)
        let hex = Base16.encode(key.secretBytes.unsafeCopy())
        for request in harness.wire.requests {
            #expect(!String(decoding: request.body, as: UTF8.self).contains(hex), sourceLocation: sourceLocation)
        }
        #expect(try await harness.wallets().isEmpty, sourceLocation: sourceLocation)
    }

    static func fresh(_ transport: AccessTransport) async throws -> ImportHarness {
        try await ImportHarness(transport)
    }

    @Test(arguments: AccessTransport.allCases)
    func theCoresOwnDocumentsVerify(_ transport: AccessTransport) async throws {
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        let key = Ed25519.PrivateKey.generate()
        let wallet = try await harness.client.importWallet(
            privateKey: key.seed, networkFamily: .solana, verifier: harness.verifier)
        #expect(wallet.address == key.solanaAddress)
        // Both replies carried a document naming the development chain.
        let root = harness.root
        #expect(root.isCA && root.subject == root.issuer)
        #expect(harness.wire.count(.getRecipientKey) == 1 && harness.wire.count(.importWallet) == 1)
    }

    @Test(arguments: AccessTransport.allCases)
    func aResignedButUnchangedDocumentVerifiesUnderItsRoot(_ transport: AccessTransport) async throws {
        // The forging wrapper itself is sound: every refusal below is due to the one change it makes.
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        let forger = try TestEnclave()
        harness.wire.rewriteDocument { try forger.resign($0) }
        let key = Secp256k1.PrivateKey.generate()
        let wallet = try await harness.client.importWallet(
            privateKey: key.secretBytes, networkFamily: .evm, verifier: harness.verifier(forger.policy))
        #expect(wallet.address == key.ethereumAddress.checksummed)
    }

    @Test(arguments: AccessTransport.allCases)
    func aMissingDocumentIsRefused(_ transport: AccessTransport) async throws {
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        harness.wire.tamper([.getRecipientKey]) { _, response in
            response.message.headers.removeAll { $0.name.lowercased() == Attestation.documentHeader.lowercased() }
        }
        try await expectRefused(harness, "has no X-Attestation-Document")
    }

    @Test(arguments: AccessTransport.allCases)
    func aBadSignatureIsRefused(_ transport: AccessTransport) async throws {
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        harness.wire.rewriteDocument([.getRecipientKey]) { header in
            var bytes = [UInt8](Data(base64Encoded: header)!)
            bytes[bytes.count - 1] ^= 0x01  // the last byte belongs to the signature
            return CanonicalBase64.encode(bytes)
        }
        try await expectRefused(harness, "invalidSignature")
    }

    @Test(arguments: AccessTransport.allCases)
    func aChainToAnotherRootIsRefused(_ transport: AccessTransport) async throws {
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        // The core's genuine document, but the client pins another root...
        let other = try TestEnclave()
        try await expectRefused(harness, verifier: harness.verifier(other.policy), "untrustedCertificate")
        // ...and a document from another chain when the client pins the core's root.
        let second = try await Self.fresh(transport)
        defer { second.remove() }
        second.wire.rewriteDocument([.getRecipientKey]) { try other.resign($0) }
        try await expectRefused(second, "untrustedCertificate")
    }

    @Test(arguments: AccessTransport.allCases)
    func anExpiredLeafIsRefused(_ transport: AccessTransport) async throws {
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        let forger = try TestEnclave(leafNotBefore: Date() - 7_200, leafNotAfter: Date() - 3_600)
        harness.wire.rewriteDocument([.getRecipientKey]) { try forger.resign($0) }
        try await expectRefused(harness, verifier: harness.verifier(forger.policy), "untrustedCertificate")
    }

    @Test(arguments: AccessTransport.allCases)
    func aWrongNonceIsRefused(_ transport: AccessTransport) async throws {
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        let forger = try TestEnclave()
        harness.wire.rewriteDocument([.getRecipientKey]) {
            try forger.resign($0) { $0.nonce = Attestation.makeNonce() }
        }
        try await expectRefused(harness, verifier: harness.verifier(forger.policy), "nonce")
    }

    @Test(arguments: AccessTransport.allCases, [-301_000, 301_000] as [Int64])
    func aTimestampMoreThanFiveMinutesAwayIsRefused(_ transport: AccessTransport, _ shiftMillis: Int64) async throws {
        // Time stands still: the core stamps whole seconds and the verifier reads the same clock, so on a
        // running clock a second that ticks between signing and checking (easily, over HTTP on a loaded
        // machine) would make +301 s look like +300 s and pass.
        let harness = try await ImportHarness(transport, clock: ManualClock())
        defer { harness.remove() }
        let forger = try TestEnclave()
        harness.wire.rewriteDocument([.getRecipientKey]) {
            try forger.resign($0) { $0.timestamp = UInt64(Int64($0.timestamp) + shiftMillis) }
        }
        try await expectRefused(harness, verifier: harness.verifier(forger.policy), "timestamp")
    }

    @Test(arguments: AccessTransport.allCases)
    func aNonZeroPCR0IsRefusedInDevelopment(_ transport: AccessTransport) async throws {
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        let forger = try TestEnclave()
        harness.wire.rewriteDocument([.getRecipientKey]) {
            try forger.resign($0) { $0.pcrs[0] = [0x01] + [UInt8](repeating: 0, count: 47) }
        }
        try await expectRefused(harness, verifier: harness.verifier(forger.policy), "PCR0 is not all zeros")
    }

    @Test(arguments: AccessTransport.allCases, [AttestationPolicy.Environment.staging, .production])
    func aZeroPCR0IsRefusedOutsideDevelopment(
        _ transport: AccessTransport, _ environment: AttestationPolicy.Environment
    ) async throws {
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        // Even with the core's root pinned and zeros listed, a debug-mode document is refused.
        let policy = AttestationPolicy(
            environment: environment, pinnedRootSHA256: harness.root.sha256Fingerprint,
            allowedPCR0s: [[UInt8](repeating: 0, count: 48)])
        try await expectRefused(harness, verifier: harness.verifier(policy), "all zeros")
    }

    @Test(arguments: AccessTransport.allCases)
    func aPublishedPCR0PassesInProductionAndAnUnlistedOneDoesNot(_ transport: AccessTransport) async throws {
        let published = [UInt8](repeating: 0xab, count: 48)
        let forger = try TestEnclave()
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        harness.wire.rewriteDocument { try forger.resign($0) { $0.pcrs[0] = published } }
        let accepting = AttestationPolicy(
            environment: .production, pinnedRootSHA256: forger.root.sha256Fingerprint, allowedPCR0s: [published])
        let key = Secp256k1.PrivateKey.generate()
        _ = try await harness.client.importWallet(
            privateKey: key.secretBytes, networkFamily: .evm, verifier: harness.verifier(accepting))

        let second = try await Self.fresh(transport)
        defer { second.remove() }
        second.wire.rewriteDocument { try forger.resign($0) { $0.pcrs[0] = published } }
        var refusing = accepting
        refusing.allowedPCR0s = [[UInt8](repeating: 0xcd, count: 48)]
        try await expectRefused(second, verifier: second.verifier(refusing), "not a published production")
        #expect(AttestationPolicy.production(pcr0s: []).pinnedRootSHA256 == Attestation.awsNitroRootSHA256)
        #expect(
            Base16.encode(Attestation.awsNitroRootSHA256)
                == "641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b")
    }

    @Test(arguments: AccessTransport.allCases)
    func userDataOverAnotherBodyIsRefused(_ transport: AccessTransport) async throws {
        // The body changed in transit (one byte of JSON whitespace) under a genuine document...
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        harness.wire.tamper([.getRecipientKey]) { _, response in response.message.body.append(0x20) }
        try await expectRefused(harness, "user_data")
        // ...and a document whose user_data covers another request's body.
        let second = try await Self.fresh(transport)
        defer { second.remove() }
        let forger = try TestEnclave()
        second.wire.rewriteDocument([.getRecipientKey]) {
            try forger.resign($0) {
                $0.userData = Attestation.userData(
                    method: .getRecipientKey, requestBody: Array("{}".utf8), responseBody: Array("{}".utf8))
            }
        }
        try await expectRefused(second, verifier: second.verifier(forger.policy), "user_data")
    }

    @Test(arguments: AccessTransport.allCases)
    func anotherPublicKeyIsRefused(_ transport: AccessTransport) async throws {
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        let forger = try TestEnclave()
        let substitute = try HPKE.KEM.p256HKDFSHA256.generateKeyPair().publicKey
        harness.wire.rewriteDocument([.getRecipientKey]) {
            try forger.resign($0) { $0.publicKey = substitute }
        }
        try await expectRefused(harness, verifier: harness.verifier(forger.policy), "public_key")
    }

    @Test(arguments: AccessTransport.allCases, ["truncated", "garbage", "not base64", "empty"])
    func malformedDocumentsAreRefused(_ transport: AccessTransport, _ kind: String) async throws {
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        harness.wire.rewriteDocument([.getRecipientKey]) { header in
            let bytes = [UInt8](Data(base64Encoded: header)!)
            switch kind {
            case "truncated": return CanonicalBase64.encode(bytes.prefix(bytes.count / 2))
            case "garbage": return CanonicalBase64.encode(SecretBytes.random(count: 200).unsafeCopy())
            case "not base64": return "%%%"
            default: return ""
            }
        }
        try await expectRefused(harness, kind == "not base64" ? "not base64" : "malformed")
    }

    @Test(arguments: AccessTransport.allCases)
    func aBadImportReplyIsReportedAsAFailure(_ transport: AccessTransport) async throws {
        // The key was sent (its recipient key verified), but the ImportWallet reply does not verify:
        // the client reports the failure instead of trusting the wallet it names.
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        harness.wire.tamper([.importWallet]) { _, response in response.message.body.append(0x0a) }
        do {
            _ = try await harness.client.importWallet(
                privateKey: Secp256k1.PrivateKey.generate().secretBytes, networkFamily: .evm,
                verifier: harness.verifier)
            Issue.record("the reply was trusted")
        } catch let error as WaasClientError {
            #expect(error.code == .attestationVerificationFailed && error.method == .importWallet)
        }
        #expect(harness.wire.count(.importWallet) == 1)
    }

    @Test(arguments: AccessTransport.allCases)
    func theOfficialSDKsNonceHeaderIsAttested(_ transport: AccessTransport) async throws {
        // Capture 12 sends the header in lower case with an 18-byte base64 nonce.
        let harness = try await Self.fresh(transport)
        defer { harness.remove() }
        let nonce = "XGl32Ne1d5kg7fVsf77hKYUf"
        let body = Array(#"{"purpose":"wallet-import","suite":"p256-sha256-aes256gcm"}"#.utf8)
        let (reply, request) = try await harness.client.callRaw(
            .getRecipientKey, body: body, extraHeaders: [("x-attestation-nonce", nonce)])
        let document = try harness.verifier.verify(
            reply: reply, to: request, method: .getRecipientKey, nonce: [UInt8](Data(base64Encoded: nonce)!))
        let response = try WaasClient.decode(GetRecipientKeyResponse.self, from: reply, method: .getRecipientKey)
        #expect(document.publicKey == CanonicalBase64.decode(response.publicKey))
        #expect(document.pcrs.count == 16 && document.pcrs[0] == [UInt8](repeating: 0, count: 48))
        #expect(document.cabundle.first == harness.root.derBytes && document.cabundle.count == 2)
        // Methods outside the attested set are not attested even when asked.
        let (plain, _) = try await harness.client.callRaw(
            .listWallets, body: Array("{}".utf8), extraHeaders: [("x-attestation-nonce", nonce)])
        #expect(plain.header(Attestation.documentHeader) == nil)
        // A nonce that is not base64 is refused before the method runs.
        await expectWaasError(.invalidRequest) {
            _ = try await harness.client.callRaw(
                .getRecipientKey, body: body, extraHeaders: [("X-Attestation-Nonce", "%%")])
        }
    }
}
