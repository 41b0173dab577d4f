internal import COpenSSL
import Foundation

/// Builds and signs X.509 v3 certificates with ECDSA P-256/P-384 keys through OpenSSL.
///
/// For a private PKI such as the core's development attestation chain (a P-384 root, an
/// intermediate and a leaf, like AWS Nitro's) and for tests. The certificates carry basic
/// constraints (critical), key usage (critical), a subject key identifier, and for issued
/// certificates an authority key identifier, per [RFC 5280 §4.2](https://www.rfc-editor.org/rfc/rfc5280#section-4.2).
/// A P-384 issuer signs with ECDSA-SHA384, a P-256 issuer with ECDSA-SHA256.
///
/// ```swift
/// let rootKey = try P384.Signing.PrivateKey()
/// let root = try X509Builder(subject: [("CN", "dev root")], subjectKey: .p384(rootKey.publicKey),
///                            notBefore: start, notAfter: end, isCA: true).selfSigned(with: .p384(rootKey))
/// ```
public struct X509Builder: Sendable {
    /// The key that signs a certificate.
    public enum SigningKey: Sendable {
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
    }

    /// The public key a certificate certifies.
    public enum SubjectKey: Sendable {
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
    }

    /// Name attributes in order, by OpenSSL short name: `("C", "US")`, `("O", ...)`, `("CN", ...)`.
    public var subject: [(key: String, value: String)]
    /// The key being certified.
    public var subjectKey: SubjectKey
    /// The start of validity (whole seconds).
    public var notBefore: Date
    /// The end of validity (whole seconds).
    public var notAfter: Date
    /// The serial number; positive.
    public var serialNumber: UInt64
    /// Whether the certificate is a CA (basic constraints `CA:TRUE`, key usage `keyCertSign, cRLSign`);
    /// otherwise an end entity (`CA:FALSE`, `digitalSignature`).
    public var isCA: Bool
    /// For a CA, the most intermediates that may follow it; nil for no limit.
    public var pathLengthConstraint: Int?

    /// A builder; the serial number defaults to a random positive 63-bit value.
    public init(
        subject: [(key: String, value: String)], subjectKey: SubjectKey, notBefore: Date, notAfter: Date,
        serialNumber: UInt64 = UInt64.random(in: 1...UInt64(Int64.max)), isCA: Bool = false,
        pathLengthConstraint: Int? = nil
    ) {
        self.subject = subject
        self.subjectKey = subjectKey
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.serialNumber = serialNumber
        self.isCA = isCA
        self.pathLengthConstraint = pathLengthConstraint
    }

    /// A self-signed certificate: issuer = subject, signed by `key`, which must match `subjectKey`.
    /// - Throws: `X509Error` `.buildFailed`.
    public func selfSigned(with key: SigningKey) throws(X509Error) -> X509Certificate {
        try build(issuer: nil, key: key)
    }

    /// A certificate issued by `issuer`, signed by `issuerKey`, which must match the issuer's public key.
    /// - Throws: `X509Error` `.buildFailed`.
    public func issued(by issuer: X509Certificate, issuerKey: SigningKey) throws(X509Error) -> X509Certificate {
        try build(issuer: try X509Handle(der: issuer.derBytes), key: issuerKey)
    }

    private func fail(_ what: String) -> X509Error {
        ERR_clear_error()
        return X509Error(.buildFailed, what)
    }

    private func build(issuer: X509Handle?, key: SigningKey) throws(X509Error) -> X509Certificate {
        guard notBefore <= notAfter else { throw X509Error(.buildFailed, "notBefore is after notAfter") }
        guard let raw = X509_new() else { throw fail("X509_new failed") }
        let certificate = X509Handle(owning: raw)
        let cert = certificate.pointer

        let signingKey: OpaquePointer
        let digest: OpaquePointer?
        switch key {
        case .p256(let privateKey):
            signingKey = privateKey.core.key.pointer
            digest = EVP_sha256()
        case .p384(let privateKey):
            signingKey = privateKey.core.key.pointer
            digest = EVP_sha384()
        }
        let publicKey: OpaquePointer
        switch subjectKey {
        case .p256(let key): publicKey = key.core.key.pointer
        case .p384(let key): publicKey = key.core.key.pointer
        }

        guard X509_set_version(cert, 2) == 1,  // v3
            ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert), serialNumber) == 1,
            ASN1_TIME_set(X509_getm_notBefore(cert), time_t(notBefore.timeIntervalSince1970.rounded(.down))) != nil,
            ASN1_TIME_set(X509_getm_notAfter(cert), time_t(notAfter.timeIntervalSince1970.rounded(.down))) != nil,
            X509_set_pubkey(cert, publicKey) == 1
        else { throw fail("setting version, serial, validity or key failed") }

        guard let name = X509_get_subject_name(cert) else { throw fail("no subject name") }
        for attribute in subject {
            let value = Array(attribute.value.utf8)
            // 0x1000 is MBSTRING_UTF8 (openssl/asn1.h).
            guard X509_NAME_add_entry_by_txt(name, attribute.key, 0x1000, value, Int32(value.count), -1, 0) == 1 else {
                throw fail("invalid name attribute \(attribute.key)")
            }
        }
        let issuerName = issuer.map { X509_get_subject_name($0.pointer) } ?? name
        guard X509_set_issuer_name(cert, issuerName) == 1 else { throw fail("setting the issuer name failed") }
        if let issuer {
            guard X509_check_private_key(issuer.pointer, signingKey) == 1 else {
                throw fail("the signing key does not match the issuer certificate")
            }
        } else {
            guard X509_check_private_key(cert, signingKey) == 1 else {
                throw fail("the signing key does not match the subject key of a self-signed certificate")
            }
        }

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? cert, cert, nil, nil, 0)
        var extensions: [(Int32, String)] = []
        if isCA {
            let pathLength = pathLengthConstraint.map { ",pathlen:\($0)" } ?? ""
            extensions.append((NID_basic_constraints, "critical,CA:TRUE\(pathLength)"))
            extensions.append((NID_key_usage, "critical,keyCertSign,cRLSign"))
        } else {
            extensions.append((NID_basic_constraints, "critical,CA:FALSE"))
            extensions.append((NID_key_usage, "critical,digitalSignature"))
        }
        extensions.append((NID_subject_key_identifier, "hash"))
        if issuer != nil { extensions.append((NID_authority_key_identifier, "keyid:always")) }
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw fail("extension \(value) could not be built")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(cert, ext, -1) == 1 else { throw fail("extension \(value) could not be added") }
        }

        guard X509_sign(cert, signingKey, digest) > 0 else { throw fail("signing the certificate failed") }
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(cert, &der)
        guard length > 0, let der else { throw fail("DER encoding failed") }
        let bytes = Array(UnsafeBufferPointer(start: der, count: Int(length)))
        CRYPTO_free(der, #fileID, #line)
        return try X509Certificate(derEncoded: bytes)
    }
}
