import TextFormats

/// A JWS in compact serialization signed with ES256: ECDSA P-256 / SHA-256, signature as raw
/// `r || s` (64 bytes). See [RFC 7515](https://www.rfc-editor.org/rfc/rfc7515) and
/// [RFC 7518 §3.4](https://www.rfc-editor.org/rfc/rfc7518#section-3.4).
///
/// Parsing checks the shape only; `verify(publicKey:)` insists on `alg` `ES256` (so `none` and
/// every other algorithm are refused) and refuses `crit` extensions it cannot honour. High-S
/// signatures are valid, as in RFC 7515 A.3.
public struct JWS: Sendable, Hashable {
    /// The decoded protected header.
    public let header: JSONObject
    /// The payload bytes.
    public let payload: [UInt8]
    /// The signature bytes as sent.
    public let signature: [UInt8]
    /// `BASE64URL(header) || '.' || BASE64URL(payload)`, the bytes signed.
    public let signingInput: String
    /// The compact serialization.
    public let compact: String

    /// Parses `header.payload.signature`.
    /// - Throws: `JOSEError` `.malformed` for a wrong number of parts, bad base64url, or a header
    ///   that is not a JSON object.
    public init(compact: String) throws(JOSEError) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw JOSEError(.malformed, "JWS compact form needs 3 parts, found \(parts.count)")
        }
        let headerBytes: [UInt8]
        do {
            headerBytes = try Base64URL.decode(parts[0])
            self.payload = try Base64URL.decode(parts[1])
            self.signature = try Base64URL.decode(parts[2])
        } catch {
            throw JOSEError(.malformed, "JWS: \(error)")
        }
        do {
            guard let header = try JSONValue.parse(headerBytes, maxDepth: 8).objectValue else {
                throw JOSEError(.malformed, "JWS header is not a JSON object")
            }
            self.header = header
        } catch let error as JOSEError {
            throw error
        } catch {
            throw JOSEError(.malformed, "JWS header: \(error)")
        }
        self.signingInput = "\(parts[0]).\(parts[1])"
        self.compact = compact
    }

    /// The `alg` header parameter.
    public var algorithm: String? { header["alg"]?.stringValue }
    /// The `kid` header parameter.
    public var keyID: String? { header["kid"]?.stringValue }

    /// Signs `payload` with ES256. `alg` is set to `ES256` first; the other header members follow
    /// in the order given.
    /// - Throws: `CryptoError` if signing fails.
    public static func signES256(header: JSONObject = [:], payload: [UInt8], privateKey: P256.Signing.PrivateKey)
        throws -> JWS
    {
        var fullHeader: JSONObject = ["alg": "ES256"]
        for member in header where member.key != "alg" { fullHeader[member.key] = member.value }
        let signingInput =
            Base64URL.encode(JSONValue.object(fullHeader).serializedBytes()) + "." + Base64URL.encode(payload)
        let signature = try privateKey.signature(for: Array(signingInput.utf8))
        return try JWS(compact: signingInput + "." + Base64URL.encode(signature))
    }

    /// Checks the algorithm and the ES256 signature under `publicKey`.
    /// - Throws: `JOSEError` `.algorithmNone`, `.unsupportedAlgorithm`, `.malformed` (for `crit`)
    ///   or `.invalidSignature`.
    public func verify(publicKey: P256.Signing.PublicKey) throws(JOSEError) {
        try checkAlgorithm()
        guard signature.count == 64, publicKey.isValidSignature(signature, for: Array(signingInput.utf8)) else {
            throw JOSEError(.invalidSignature, "JWS ES256 signature does not verify")
        }
    }

    /// Refuses any algorithm but ES256, and any `crit` header (no extension is understood).
    func checkAlgorithm() throws(JOSEError) {
        guard let algorithm else { throw JOSEError(.malformed, "JWS header has no alg") }
        if algorithm.lowercased() == "none" { throw JOSEError(.algorithmNone, "JWS alg none is refused") }
        guard algorithm == "ES256" else {
            throw JOSEError(.unsupportedAlgorithm, "JWS alg \(algorithm) is refused, only ES256 is accepted")
        }
        if header["crit"] != nil { throw JOSEError(.malformed, "JWS crit header parameters are not supported") }
    }
}

/// Why a JWK, JWS or JWT was refused. Each check has its own code.
public struct JOSEError: CodedError, Sendable {
    /// Which check failed.
    public enum Code: String, Hashable, Sendable {
        /// Not well-formed: parts, base64url, JSON, member types.
        case malformed
        /// `alg` is `none`.
        case algorithmNone
        /// `alg` is not ES256.
        case unsupportedAlgorithm
        /// A key that is not EC P-256 (or lacks the members a thumbprint needs).
        case unsupportedKey
        /// No key of the set matches the token's `kid`.
        case unknownKey
        /// The signature does not verify.
        case invalidSignature
        /// `exp` has passed (beyond the leeway).
        case expired
        /// `nbf` has not yet come (beyond the leeway).
        case notYetValid
        /// `iss` is not the expected issuer.
        case wrongIssuer
        /// `aud` does not contain the expected audience.
        case wrongAudience
        /// A required claim is missing.
        case missingClaim
        /// A claim has the wrong type.
        case invalidClaim
    }
    /// Which check failed.
    public let code: Code
    /// Details.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
