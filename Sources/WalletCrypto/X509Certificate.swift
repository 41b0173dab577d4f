internal import COpenSSL
import Foundation
import TextFormats

/// An X.509 certificate, parsed once from DER with OpenSSL and kept as its DER bytes.
///
/// Gives the fields attestation checks need: validity, names, the SHA-256 fingerprint of the
/// DER (for pinning), and the subject's EC public key as a raw SEC1 point (for COSE_Sign1
/// verification). See [RFC 5280](https://www.rfc-editor.org/rfc/rfc5280).
public struct X509Certificate: Sendable, Hashable, CustomStringConvertible {
    /// The subject public key's algorithm.
    public enum KeyAlgorithm: Sendable, Hashable {
        /// ECDSA over P-256 (prime256v1).
        case ecP256
        /// ECDSA over P-384 (secp384r1).
        case ecP384
        /// Anything else, by OpenSSL's short name.
        case other(String)
    }

    /// The certificate as DER.
    public let derBytes: [UInt8]
    /// SHA-256 of `derBytes`, the value pinned roots are compared by.
    public let sha256Fingerprint: [UInt8]
    /// The start of the validity period.
    public let notBefore: Date
    /// The end of the validity period.
    public let notAfter: Date
    /// The subject name in RFC 2253 order of appearance, e.g. `C=US, O=Amazon, CN=aws.nitro-enclaves`.
    public let subject: String
    /// The issuer name, formatted as `subject`.
    public let issuer: String
    /// The subject's common name, if any.
    public let subjectCommonName: String?
    /// The serial number, big-endian, without sign padding.
    public let serialNumber: [UInt8]
    /// Whether basic constraints say this is a CA certificate.
    public let isCA: Bool
    /// The subject public key's algorithm.
    public let keyAlgorithm: KeyAlgorithm
    /// For EC keys, the public point in SEC1 uncompressed form (`04 || X || Y`); empty otherwise.
    public let publicKeyPoint: [UInt8]

    /// Parses one certificate from DER; every byte must belong to it.
    /// - Throws: `X509Error` `.invalidDER`.
    public init<Bytes: Collection>(derEncoded bytes: Bytes) throws(X509Error) where Bytes.Element == UInt8 {
        let der = Array(bytes)
        let handle = try X509Handle(der: der)
        self.derBytes = der
        self.sha256Fingerprint = X509Digest.sha256(der)
        let cert = handle.pointer
        self.notBefore = try X509Handle.date(X509_get0_notBefore(cert), field: "notBefore")
        self.notAfter = try X509Handle.date(X509_get0_notAfter(cert), field: "notAfter")
        let subjectAttributes = X509Handle.attributes(X509_get_subject_name(cert))
        self.subject = subjectAttributes.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")
        self.subjectCommonName = subjectAttributes.last { $0.0 == "CN" }?.1
        self.issuer = X509Handle.attributes(X509_get_issuer_name(cert)).map { "\($0.0)=\($0.1)" }
            .joined(separator: ", ")
        self.serialNumber = X509Handle.serial(cert)
        self.isCA = X509_check_ca(cert) != 0
        (self.keyAlgorithm, self.publicKeyPoint) = X509Handle.publicKey(cert)
    }

    /// Parses the single certificate of a PEM text.
    /// - Throws: `X509Error` `.invalidPEM` unless the text holds exactly one certificate.
    public init(pemEncoded text: String) throws(X509Error) {
        let all = try X509Certificate.certificates(pemEncoded: text)
        guard all.count == 1 else {
            throw X509Error(.invalidPEM, "expected one certificate, found \(all.count)")
        }
        self = all[0]
    }

    /// Parses every `CERTIFICATE` block of a PEM bundle, in order.
    /// - Throws: `X509Error` `.invalidPEM` for an unterminated block, bad base64, or no block.
    public static func certificates(pemEncoded text: String) throws(X509Error) -> [X509Certificate] {
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var result: [X509Certificate] = []
        var body: String?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line == begin {
                guard body == nil else { throw X509Error(.invalidPEM, "BEGIN inside a block") }
                body = ""
            } else if line == end {
                guard let base64 = body else { throw X509Error(.invalidPEM, "END without BEGIN") }
                guard let der = Data(base64Encoded: base64) else {
                    throw X509Error(.invalidPEM, "certificate \(result.count + 1) is not valid base64")
                }
                result.append(try X509Certificate(derEncoded: der))
                body = nil
            } else if body != nil {
                body! += line
            }
        }
        guard body == nil else { throw X509Error(.invalidPEM, "unterminated CERTIFICATE block") }
        guard !result.isEmpty else { throw X509Error(.invalidPEM, "no CERTIFICATE block") }
        return result
    }

    /// The certificate as PEM, base64 lines of 64 characters.
    public var pemEncoded: String {
        let base64 = Data(derBytes).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }

    /// The subject public key as a P-384 uncompressed point (97 bytes), for COSE ES384.
    /// - Throws: `X509Error` `.unsupportedKey` if the key is not an EC P-384 key.
    public func p384PublicKeyPoint() throws(X509Error) -> [UInt8] {
        guard keyAlgorithm == .ecP384, publicKeyPoint.count == 97 else {
            throw X509Error(.unsupportedKey, "subject key of \(subject) is \(keyAlgorithm), not EC P-384")
        }
        return publicKeyPoint
    }

    /// The subject public key as a `P384.Signing.PublicKey`, for verifying COSE ES384 signatures.
    /// - Throws: `X509Error` `.unsupportedKey` if the key is not an EC P-384 key.
    public func p384PublicKey() throws(X509Error) -> P384.Signing.PublicKey {
        let point = try p384PublicKeyPoint()
        do {
            return try P384.Signing.PublicKey(x963Representation: point)
        } catch {
            throw X509Error(.unsupportedKey, "subject key of \(subject): \(error)")
        }
    }

    /// Whether `date` lies within `notBefore...notAfter`.
    public func isValid(at date: Date) -> Bool { notBefore <= date && date <= notAfter }

    public var description: String {
        "X509Certificate(subject: \(subject), issuer: \(issuer), sha256: \(sha256Fingerprint.map { String(format: "%02x", $0) }.joined()))"
    }

    public static func == (lhs: X509Certificate, rhs: X509Certificate) -> Bool { lhs.derBytes == rhs.derBytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(derBytes) }
}

/// Why a certificate could not be read, built or verified.
public struct X509Error: CodedError, Sendable {
    /// What went wrong.
    public enum Code: String, Hashable, Sendable {
        /// Bytes that are not one DER certificate.
        case invalidDER
        /// Text that is not a PEM certificate (bundle).
        case invalidPEM
        /// A key of an algorithm or curve this code does not handle.
        case unsupportedKey
        /// No certificate in the bundle has the pinned fingerprint.
        case pinnedRootNotFound
        /// A certificate of the chain had expired at the verification time.
        case expired
        /// A certificate of the chain was not yet valid at the verification time.
        case notYetValid
        /// The chain does not verify (signature, issuer, constraints ...).
        case chainInvalid
        /// Building or signing a certificate failed.
        case buildFailed
    }

    /// What went wrong.
    public let code: Code
    /// Details, including OpenSSL's reason and the chain depth where it applies.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "X.509 \(code.rawValue): \(message)" }
}

/// SHA-256 through OpenSSL's EVP one-shot digest, for fingerprints.
enum X509Digest {
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed")
        return out
    }
}

/// Owns an OpenSSL `X509*` for the duration of a parse or verification.
final class X509Handle {
    let pointer: OpaquePointer

    init(der: [UInt8]) throws(X509Error) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let cert = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            guard cursor == base + buffer.count else {
                X509_free(cert)
                return nil
            }
            return cert
        }
        guard let parsed else {
            ERR_clear_error()
            throw X509Error(.invalidDER, "not a DER certificate (\(der.count) bytes)")
        }
        pointer = parsed
    }

    /// Takes ownership of an `X509*`.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    static func date(_ time: UnsafePointer<ASN1_TIME>?, field: String) throws(X509Error) -> Date {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else {
            throw X509Error(.invalidDER, "unreadable \(field)")
        }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    static func attributes(_ name: OpaquePointer?) -> [(String, String)] {
        guard let name else { return [] }
        var result: [(String, String)] = []
        for index in 0..<X509_NAME_entry_count(name) {
            guard let entry = X509_NAME_get_entry(name, index) else { continue }
            let nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry))
            let key = OBJ_nid2sn(nid).map { String(cString: $0) } ?? "?"
            var utf8: UnsafeMutablePointer<UInt8>?
            let length = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry))
            guard length >= 0, let utf8 else { continue }
            result.append((key, String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)))
            CRYPTO_free(utf8, #fileID, #line)
        }
        return result
    }

    static func serial(_ cert: OpaquePointer) -> [UInt8] {
        guard let integer = X509_get0_serialNumber(cert), let bn = ASN1_INTEGER_to_BN(integer, nil) else { return [] }
        defer { BN_free(bn) }
        var out = [UInt8](repeating: 0, count: Int((BN_num_bits(bn) + 7) / 8))
        _ = out.withUnsafeMutableBufferPointer { BN_bn2bin(bn, $0.baseAddress) }
        return out
    }

    static func publicKey(_ cert: OpaquePointer) -> (X509Certificate.KeyAlgorithm, [UInt8]) {
        guard let key = X509_get0_pubkey(cert) else { return (.other("none"), []) }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else {
            let name = OBJ_nid2sn(EVP_PKEY_get_base_id(key)).map { String(cString: $0) } ?? "unknown"
            return (.other(name), [])
        }
        var group = [CChar](repeating: 0, count: 64)
        var groupLength = 0
        guard EVP_PKEY_get_utf8_string_param(key, "group", &group, group.count, &groupLength) == 1 else {
            ERR_clear_error()
            return (.other("EC"), [])
        }
        let groupName = String(decoding: group.prefix(groupLength).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var point = [UInt8](repeating: 0, count: 133)
        var pointLength = 0
        guard EVP_PKEY_get_octet_string_param(key, "pub", &point, point.count, &pointLength) == 1 else {
            ERR_clear_error()
            return (.other(groupName), [])
        }
        let raw = Array(point.prefix(pointLength))
        switch groupName {
        case "secp384r1": return (.ecP384, raw)
        case "prime256v1": return (.ecP256, raw)
        default: return (.other(groupName), raw)
        }
    }
}
