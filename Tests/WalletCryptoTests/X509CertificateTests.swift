import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct X509CertificateTests {
    static let awsRootSHA256 = "641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b"

    @Test func awsNitroRootFingerprintAndFields() throws {
        let pem = String(decoding: try Fixtures.data("vectors/aws_nitro_enclaves_root_g1.pem"), as: UTF8.self)
        let root = try X509Certificate(pemEncoded: pem)
        #expect(TestSupport.Hex.encode(root.sha256Fingerprint) == Self.awsRootSHA256)
        #expect(root.keyAlgorithm == .ecP384)
        #expect(try root.p384PublicKeyPoint().count == 97)
        #expect(try root.p384PublicKey().x963Representation == root.publicKeyPoint)
        #expect(root.isCA)
        #expect(root.subject == root.issuer)
        #expect(root.subjectCommonName == "aws.nitro-enclaves")
        #expect(root.notBefore < root.notAfter)
        // The root verifies as a chain of one against its own pin.
        let path = try X509ChainVerifier.verify(
            leaf: root, intermediates: [root], pinnedRootSHA256: root.sha256Fingerprint,
            at: root.notBefore.addingTimeInterval(86_400))
        #expect(path == [root])
        // PEM and DER round trip.
        #expect(try X509Certificate(pemEncoded: root.pemEncoded) == root)
        #expect(try X509Certificate(derEncoded: root.derBytes).sha256Fingerprint == root.sha256Fingerprint)
    }

    @Test func malformedInputIsRefused() throws {
        let pem = String(decoding: try Fixtures.data("vectors/aws_nitro_enclaves_root_g1.pem"), as: UTF8.self)
        let root = try X509Certificate(pemEncoded: pem)
        #expect(throws: X509Error(.invalidDER, "")) { try X509Certificate(derEncoded: root.derBytes + [0]) }
        #expect(throws: X509Error(.invalidDER, "")) { try X509Certificate(derEncoded: root.derBytes.dropLast()) }
        #expect(throws: X509Error(.invalidDER, "")) { try X509Certificate(derEncoded: [UInt8]()) }
        #expect(throws: X509Error(.invalidPEM, "")) { try X509Certificate(pemEncoded: "hello") }
        #expect(throws: X509Error(.invalidPEM, "")) { try X509Certificate(pemEncoded: pem + pem) }
        #expect(throws: X509Error(.invalidPEM, "")) {
            try X509Certificate(pemEncoded: pem.replacingOccurrences(of: "-----END CERTIFICATE-----", with: ""))
        }
        #expect(try X509Certificate.certificates(pemEncoded: pem + "\n" + pem).count == 2)
    }

    struct MockChain {
        let leaf: X509Certificate
        let bundle: [X509Certificate]
        let root: X509Certificate
        let rootPin: [UInt8]
        let verifyAt: Date
        let leafExpiredAt: Date
    }

    static func mockChain() throws -> MockChain {
        let json = try #require(Fixtures.json("vectors/mock_nitro_attestation_doc.json") as? [String: Any])
        let hex = try #require(json["attestation_doc_cose_sign1_hex"] as? String)
        let message = try COSESign1(encoded: try #require(TestSupport.Hex.decode(hex)))
        let document = try NitroAttestationDocument(payload: message.payload)
        let root = try X509Certificate(pemEncoded: try #require(json["root_pem"] as? String))
        let pinHex = try #require(json["root_sha256"] as? String)
        let pin = try #require(TestSupport.Hex.decode(pinHex))
        let verifyMs = try #require(json["verify_at_unix_ms"] as? Int)
        let negative = try #require(json["negative"] as? [String: Any])
        let expiredMs = try #require(negative["leaf_expired_if_checked_at_unix_ms"] as? Int)
        return MockChain(
            leaf: try X509Certificate(derEncoded: document.certificate),
            bundle: try document.cabundle.map { try X509Certificate(derEncoded: $0) }, root: root, rootPin: pin,
            verifyAt: Date(timeIntervalSince1970: Double(verifyMs) / 1000),
            leafExpiredAt: Date(timeIntervalSince1970: Double(expiredMs) / 1000))
    }

    @Test func mockNitroChainVerifiesAgainstItsPinnedRoot() throws {
        let chain = try Self.mockChain()
        #expect(chain.root.sha256Fingerprint == chain.rootPin)
        #expect(chain.bundle.first == chain.root, "the cabundle lists the root first")
        #expect(chain.leaf.keyAlgorithm == .ecP384)
        #expect(chain.leaf.subjectCommonName == "i-0mock-enc0mock")
        let path = try X509ChainVerifier.verify(
            leaf: chain.leaf, intermediates: chain.bundle, pinnedRootSHA256: chain.rootPin, at: chain.verifyAt)
        #expect(path.first == chain.leaf)
        #expect(path.last == chain.root)
        #expect(path.count == chain.bundle.count + 1)
    }

    @Test func mockNitroChainFailsWhenExpiredOrWronglyPinned() throws {
        let chain = try Self.mockChain()
        #expect(throws: X509Error(.expired, "")) {
            try X509ChainVerifier.verify(
                leaf: chain.leaf, intermediates: chain.bundle, pinnedRootSHA256: chain.rootPin, at: chain.leafExpiredAt)
        }
        #expect(throws: X509Error(.notYetValid, "")) {
            try X509ChainVerifier.verify(
                leaf: chain.leaf, intermediates: chain.bundle, pinnedRootSHA256: chain.rootPin,
                at: chain.leaf.notBefore.addingTimeInterval(-1))
        }
        let awsPin = try #require(TestSupport.Hex.decode(Self.awsRootSHA256))
        #expect(throws: X509Error(.pinnedRootNotFound, "")) {
            try X509ChainVerifier.verify(
                leaf: chain.leaf, intermediates: chain.bundle, pinnedRootSHA256: awsPin, at: chain.verifyAt)
        }
        // Without the intermediates the path cannot be built.
        #expect(throws: X509Error(.chainInvalid, "")) {
            try X509ChainVerifier.verify(
                leaf: chain.leaf, intermediates: [chain.root], pinnedRootSHA256: chain.rootPin, at: chain.verifyAt)
        }
    }

    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    static let end = start.addingTimeInterval(365 * 86_400)

    @Test func builtP384ChainVerifiesAndReportsItsFields() throws {
        let rootKey = try P384.Signing.PrivateKey()
        let intermediateKey = try P384.Signing.PrivateKey()
        let leafKey = try P384.Signing.PrivateKey()
        let root = try X509Builder(
            subject: [("C", "US"), ("O", "walletops"), ("CN", "dev root")], subjectKey: .p384(rootKey.publicKey),
            notBefore: Self.start, notAfter: Self.end, serialNumber: 0x0102, isCA: true
        ).selfSigned(with: .p384(rootKey))
        let intermediate = try X509Builder(
            subject: [("CN", "dev intermediate")], subjectKey: .p384(intermediateKey.publicKey),
            notBefore: Self.start, notAfter: Self.end, isCA: true, pathLengthConstraint: 0
        ).issued(by: root, issuerKey: .p384(rootKey))
        let leaf = try X509Builder(
            subject: [("CN", "dev enclave")], subjectKey: .p384(leafKey.publicKey), notBefore: Self.start,
            notAfter: Self.start.addingTimeInterval(3600)
        ).issued(by: intermediate, issuerKey: .p384(intermediateKey))

        #expect(root.subject == "C=US, O=walletops, CN=dev root")
        #expect(root.issuer == root.subject)
        #expect(root.serialNumber == [0x01, 0x02])
        #expect(root.notBefore == Self.start)
        #expect(leaf.issuer == "CN=dev intermediate")
        #expect(root.isCA && intermediate.isCA && !leaf.isCA)
        #expect(try leaf.p384PublicKeyPoint() == leafKey.publicKey.x963Representation)

        let at = Self.start.addingTimeInterval(60)
        let path = try X509ChainVerifier.verify(
            leaf: leaf, intermediates: [root, intermediate], pinnedRootSHA256: root.sha256Fingerprint, at: at)
        #expect(path == [leaf, intermediate, root])
        #expect(throws: X509Error(.expired, "")) {
            try X509ChainVerifier.verify(
                leaf: leaf, intermediates: [root, intermediate], pinnedRootSHA256: root.sha256Fingerprint,
                at: Self.start.addingTimeInterval(7200))
        }

        // A look-alike root (same name, other key) is not the pinned one, and cannot stand in for it.
        let otherKey = try P384.Signing.PrivateKey()
        let impostor = try X509Builder(
            subject: [("C", "US"), ("O", "walletops"), ("CN", "dev root")], subjectKey: .p384(otherKey.publicKey),
            notBefore: Self.start, notAfter: Self.end, isCA: true
        ).selfSigned(with: .p384(otherKey))
        #expect(throws: X509Error(.chainInvalid, "")) {
            try X509ChainVerifier.verify(
                leaf: leaf, intermediates: [impostor, intermediate], pinnedRootSHA256: impostor.sha256Fingerprint,
                at: at)
        }
        // An end-entity certificate cannot act as an issuer.
        let rogue = try X509Builder(
            subject: [("CN", "rogue")], subjectKey: .p384(otherKey.publicKey), notBefore: Self.start,
            notAfter: Self.end
        ).issued(by: leaf, issuerKey: .p384(leafKey))
        #expect(throws: X509Error(.chainInvalid, "")) {
            try X509ChainVerifier.verify(
                leaf: rogue, intermediates: [root, intermediate, leaf], pinnedRootSHA256: root.sha256Fingerprint,
                at: at)
        }
    }

    @Test func builderRefusesMismatchedKeysAndSupportsP256() throws {
        let key = try P256.Signing.PrivateKey()
        let other = try P256.Signing.PrivateKey()
        #expect(throws: X509Error(.buildFailed, "")) {
            try X509Builder(
                subject: [("CN", "x")], subjectKey: .p256(key.publicKey), notBefore: Self.start, notAfter: Self.end
            ).selfSigned(with: .p256(other))
        }
        #expect(throws: X509Error(.buildFailed, "")) {
            try X509Builder(
                subject: [("CN", "x")], subjectKey: .p256(key.publicKey), notBefore: Self.end, notAfter: Self.start
            ).selfSigned(with: .p256(key))
        }
        let cert = try X509Builder(
            subject: [("CN", "p256")], subjectKey: .p256(key.publicKey), notBefore: Self.start, notAfter: Self.end,
            isCA: true
        ).selfSigned(with: .p256(key))
        #expect(cert.keyAlgorithm == .ecP256)
        #expect(cert.publicKeyPoint == key.publicKey.x963Representation)
        #expect(throws: X509Error(.unsupportedKey, "")) { try cert.p384PublicKeyPoint() }
        #expect(
            try X509ChainVerifier.verify(
                leaf: cert, intermediates: [cert], pinnedRootSHA256: cert.sha256Fingerprint, at: Self.start) == [cert])
    }
}
