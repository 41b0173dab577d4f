import TextFormats

/// A COSE_Sign1 message with ECDSA P-384 / SHA-384 (`ES384`, algorithm -35), the form of AWS
/// Nitro attestation documents. See [RFC 9052 §4.2](https://www.rfc-editor.org/rfc/rfc9052#section-4.2)
/// and [RFC 9053 §2.1](https://www.rfc-editor.org/rfc/rfc9053#section-2.1).
///
/// `init(encoded:)` accepts the tagged (tag 18) or untagged array of four items; the protected
/// header is kept as the exact bytes received, since the signature covers them.
public struct COSESign1: Sendable, Hashable {
    /// The CBOR tag of a COSE_Sign1 message.
    public static let tag: UInt64 = 18
    /// The COSE algorithm identifier of ES384.
    public static let algorithmES384: Int64 = -35

    /// The serialized protected header map, as received (empty when there is none).
    public let protectedHeaderBytes: [UInt8]
    /// The protected header map, decoded (an empty map when the bytes are empty).
    public let protectedHeader: CBOR
    /// The unprotected header map.
    public let unprotectedHeader: CBOR
    /// The payload (attached).
    public let payload: [UInt8]
    /// The signature; for ES384, raw `r || s` (96 bytes).
    public let signature: [UInt8]

    /// Parses a COSE_Sign1 message.
    /// - Parameter limits: bounds for the CBOR decoder (the whole message and the protected header).
    /// - Throws: `COSEError` `.malformed` (with the CBOR error's offset) for any shape error.
    public init<Bytes: Collection>(encoded bytes: Bytes, limits: CBORDecoder.Limits = .init()) throws(COSEError)
    where Bytes.Element == UInt8 {
        let item: CBOR
        do {
            item = try CBORDecoder(limits: limits).decode(bytes)
        } catch {
            throw COSEError(.malformed, "COSE_Sign1: \(error)")
        }
        try self.init(item: item, limits: limits)
    }

    /// Reads a COSE_Sign1 from an already decoded item (tagged 18 or untagged).
    public init(item: CBOR, limits: CBORDecoder.Limits = .init()) throws(COSEError) {
        var body = item
        if case .tagged(let tag, let inner) = item {
            guard tag == COSESign1.tag else { throw COSEError(.malformed, "COSE_Sign1: tag \(tag), expected 18") }
            body = inner
        }
        guard let parts = body.arrayValue, parts.count == 4 else {
            throw COSEError(.malformed, "COSE_Sign1: expected an array of 4 items, got a \(body.kindName)")
        }
        guard let protectedBytes = parts[0].bytesValue else {
            throw COSEError(.malformed, "COSE_Sign1: protected header is a \(parts[0].kindName), not a byte string")
        }
        let protectedMap: CBOR
        if protectedBytes.isEmpty {
            protectedMap = .map([])
        } else {
            do {
                protectedMap = try CBORDecoder(limits: limits).decode(protectedBytes)
            } catch {
                throw COSEError(.malformed, "COSE_Sign1 protected header: \(error)")
            }
        }
        guard protectedMap.mapValue != nil else {
            throw COSEError(.malformed, "COSE_Sign1: protected header is not a map")
        }
        guard parts[1].mapValue != nil else {
            throw COSEError(.malformed, "COSE_Sign1: unprotected header is a \(parts[1].kindName), not a map")
        }
        guard let payload = parts[2].bytesValue else {
            throw COSEError(
                .malformed,
                "COSE_Sign1: payload is a \(parts[2].kindName), not a byte string (detached payloads are not supported)"
            )
        }
        guard let signature = parts[3].bytesValue else {
            throw COSEError(.malformed, "COSE_Sign1: signature is a \(parts[3].kindName), not a byte string")
        }
        self.protectedHeaderBytes = protectedBytes
        self.protectedHeader = protectedMap
        self.unprotectedHeader = parts[1]
        self.payload = payload
        self.signature = signature
    }

    /// The algorithm (label 1) of the protected header, if it is an integer.
    public var algorithm: Int64? { protectedHeader[.int(1)]?.intValue }

    /// The bytes signed: `Sig_structure = ["Signature1", protected, external_aad, payload]`
    /// ([RFC 9052 §4.4](https://www.rfc-editor.org/rfc/rfc9052#section-4.4)).
    public func signatureStructure(externalAAD: [UInt8] = []) -> [UInt8] {
        COSESign1.signatureStructure(
            protectedHeaderBytes: protectedHeaderBytes, payload: payload, externalAAD: externalAAD)
    }

    static func signatureStructure(protectedHeaderBytes: [UInt8], payload: [UInt8], externalAAD: [UInt8]) -> [UInt8] {
        CBOR.array([.text("Signature1"), .bytes(protectedHeaderBytes), .bytes(externalAAD), .bytes(payload)]).encoded()
    }

    /// Checks that the protected header says ES384 and that the signature verifies under `publicKey`.
    /// - Throws: `COSEError` `.unsupportedAlgorithm` or `.invalidSignature`.
    public func verify(publicKey: P384.Signing.PublicKey, externalAAD: [UInt8] = []) throws(COSEError) {
        guard algorithm == COSESign1.algorithmES384 else {
            throw COSEError(
                .unsupportedAlgorithm,
                "COSE_Sign1: protected algorithm is \(algorithm.map(String.init) ?? "absent"), expected ES384 (-35)")
        }
        guard signature.count == 96,
            publicKey.isValidSignature(signature, for: signatureStructure(externalAAD: externalAAD))
        else {
            throw COSEError(.invalidSignature, "COSE_Sign1: the ES384 signature does not verify")
        }
    }

    /// Signs `payload` with ES384: protected header `{1: -35}`, the given unprotected header.
    /// - Throws: `CryptoError` if signing fails.
    public static func sign(
        payload: [UInt8], privateKey: P384.Signing.PrivateKey, unprotectedHeader: CBOR = .map([]),
        externalAAD: [UInt8] = []
    ) throws -> COSESign1 {
        let protectedBytes = CBOR.map([CBOR.MapEntry(1, .int(algorithmES384))]).encoded()
        let toBeSigned = signatureStructure(
            protectedHeaderBytes: protectedBytes, payload: payload, externalAAD: externalAAD)
        let signature = try privateKey.signature(for: toBeSigned)
        return try COSESign1(
            item: .array([.bytes(protectedBytes), unprotectedHeader, .bytes(payload), .bytes(signature)]))
    }

    /// The message as CBOR, tagged 18 unless `tagged` is false.
    public func encoded(tagged: Bool = true) -> [UInt8] {
        let body = CBOR.array([.bytes(protectedHeaderBytes), unprotectedHeader, .bytes(payload), .bytes(signature)])
        return (tagged ? CBOR.tagged(COSESign1.tag, body) : body).encoded()
    }
}

/// Why a COSE message was refused.
public struct COSEError: CodedError, Sendable {
    /// What went wrong.
    public enum Code: String, Hashable, Sendable {
        /// Not a well-formed COSE_Sign1 (CBOR errors included, with their offset).
        case malformed
        /// The protected header names an algorithm other than ES384.
        case unsupportedAlgorithm
        /// The signature does not verify.
        case invalidSignature
    }
    /// What went wrong.
    public let code: Code
    /// Details.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
