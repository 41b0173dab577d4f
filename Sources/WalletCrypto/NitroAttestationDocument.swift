import Foundation
import TextFormats

/// The payload of an AWS Nitro Enclaves attestation document, with its field types checked.
///
/// The document is a COSE_Sign1 (ES384) whose payload is a CBOR map: `module_id` (text),
/// `digest` (`"SHA384"`), `timestamp` (milliseconds since the epoch), `pcrs` (index → 32/48/64-byte
/// value), `certificate` (DER leaf), `cabundle` (DER certificates, root first), and the optional
/// `public_key`, `user_data` and `nonce` (byte strings or null). Unknown text keys are ignored.
/// See AWS "Nitro Enclaves attestation document" (the verification process) and
/// [RFC 9052](https://www.rfc-editor.org/rfc/rfc9052).
public struct NitroAttestationDocument: Sendable, Hashable {
    /// The enclave's module (instance) identifier.
    public let moduleID: String
    /// The PCR digest algorithm; always `"SHA384"`.
    public let digest: String
    /// Milliseconds since the Unix epoch when the document was made.
    public let timestamp: UInt64
    /// Platform configuration registers by index.
    public let pcrs: [Int: [UInt8]]
    /// The leaf certificate (DER) whose key signed the document.
    public let certificate: [UInt8]
    /// The CA bundle (DER): the root first, then intermediates towards the leaf.
    public let cabundle: [[UInt8]]
    /// The enclave's public key, if it published one.
    public let publicKey: [UInt8]?
    /// Application data, if any.
    public let userData: [UInt8]?
    /// The nonce the requester supplied, if any.
    public let nonce: [UInt8]?

    /// `timestamp` as a date.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(timestamp) / 1000) }

    /// Parses and type-checks a payload (the CBOR map inside the COSE_Sign1).
    /// - Throws: `NitroAttestationError` `.malformed` naming the field at fault.
    public init<Bytes: Collection>(payload bytes: Bytes, limits: CBORDecoder.Limits = .init())
        throws(NitroAttestationError)
    where Bytes.Element == UInt8 {
        let item: CBOR
        do {
            item = try CBORDecoder(limits: limits).decode(bytes)
        } catch {
            throw NitroAttestationError(.malformed, "attestation payload: \(error)")
        }
        try self.init(payload: item)
    }

    /// Type-checks an already decoded payload map.
    public init(payload item: CBOR) throws(NitroAttestationError) {
        guard let entries = item.mapValue else {
            throw NitroAttestationError(.malformed, "attestation payload is a \(item.kindName), not a map")
        }
        var fields: [String: CBOR] = [:]
        for entry in entries {
            guard let key = entry.key.textValue else {
                throw NitroAttestationError(.malformed, "attestation payload has a non-text key")
            }
            fields[key] = entry.value
        }
        func malformed(_ message: String) -> NitroAttestationError { NitroAttestationError(.malformed, message) }
        func required(_ name: String) throws(NitroAttestationError) -> CBOR {
            guard let value = fields[name] else { throw malformed("missing \(name)") }
            return value
        }
        func bytes(_ name: String, _ value: CBOR, _ range: ClosedRange<Int>) throws(NitroAttestationError) -> [UInt8] {
            guard let bytes = value.bytesValue else {
                throw malformed("\(name) is a \(value.kindName), not a byte string")
            }
            guard range.contains(bytes.count) else {
                throw malformed("\(name) has \(bytes.count) bytes, expected \(range.lowerBound)...\(range.upperBound)")
            }
            return bytes
        }
        func optionalBytes(_ name: String, _ range: ClosedRange<Int>) throws(NitroAttestationError) -> [UInt8]? {
            guard let value = fields[name], !value.isNull else { return nil }
            return try bytes(name, value, range)
        }

        let moduleValue = try required("module_id")
        guard let moduleID = moduleValue.textValue, !moduleID.isEmpty else {
            throw malformed("module_id is not a non-empty text string")
        }
        let digestValue = try required("digest")
        guard digestValue.textValue == "SHA384" else { throw malformed("digest is not \"SHA384\"") }
        let timestampValue = try required("timestamp")
        guard let timestamp = timestampValue.unsignedValue, timestamp > 0 else {
            throw malformed("timestamp is not a positive unsigned integer")
        }

        let pcrValue = try required("pcrs")
        guard let pcrEntries = pcrValue.mapValue, (1...32).contains(pcrEntries.count) else {
            throw malformed("pcrs is not a map of 1...32 entries")
        }
        var pcrs: [Int: [UInt8]] = [:]
        for entry in pcrEntries {
            guard let index = entry.key.unsignedValue, index < 32 else {
                throw malformed("pcrs key is not an integer in 0...31")
            }
            let value = try bytes("pcrs[\(index)]", entry.value, 32...64)
            guard [32, 48, 64].contains(value.count) else {
                throw malformed("pcrs[\(index)] has \(value.count) bytes, expected 32, 48 or 64")
            }
            pcrs[Int(index)] = value
        }

        let certificate = try bytes("certificate", try required("certificate"), 1...1024)
        let bundleValue = try required("cabundle")
        guard let bundleItems = bundleValue.arrayValue, !bundleItems.isEmpty else {
            throw malformed("cabundle is not a non-empty array")
        }
        var cabundle: [[UInt8]] = []
        for (index, element) in bundleItems.enumerated() {
            cabundle.append(try bytes("cabundle[\(index)]", element, 1...1024))
        }

        self.moduleID = moduleID
        self.digest = "SHA384"
        self.timestamp = timestamp
        self.pcrs = pcrs
        self.certificate = certificate
        self.cabundle = cabundle
        self.publicKey = try optionalBytes("public_key", 1...1024)
        self.userData = try optionalBytes("user_data", 0...512)
        self.nonce = try optionalBytes("nonce", 0...512)
    }

    /// Verifies a whole attestation document and returns its payload:
    /// the COSE_Sign1 parses, the payload type-checks, the leaf certificate chains through the
    /// `cabundle` to the root pinned by `pinnedRootSHA256` at `date`, and the leaf's P-384 key
    /// verifies the ES384 signature.
    /// - Parameters:
    ///   - coseSign1: the document as received (tagged or untagged COSE_Sign1).
    ///   - pinnedRootSHA256: SHA-256 of the root certificate's DER (AWS:
    ///     `641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b`).
    ///   - date: the time at which the chain must be valid.
    ///   - chainCache: chains verified before; a chain found there, valid at `date` as a whole, is not
    ///     checked again (the document's signature always is).
    /// - Throws: `NitroAttestationError` whose code says which step failed.
    public static func verify(
        coseSign1: [UInt8], pinnedRootSHA256: [UInt8], at date: Date, chainCache: X509ChainCache? = nil
    )
        throws(NitroAttestationError)
        -> NitroAttestationDocument
    {
        let message: COSESign1
        do {
            message = try COSESign1(encoded: coseSign1)
        } catch {
            throw NitroAttestationError(.malformed, "attestation document: \(error)")
        }
        let document = try NitroAttestationDocument(payload: message.payload)
        let cacheKey = chainCache.map { _ in
            X509ChainCache.key(
                leaf: document.certificate, bundle: document.cabundle, pinnedRootSHA256: pinnedRootSHA256)
        }
        if let chainCache, let cacheKey, let leafKey = chainCache.leafKey(for: cacheKey, at: date) {
            do {
                try message.verify(publicKey: leafKey)
            } catch {
                throw NitroAttestationError(.invalidSignature, "attestation document: \(error)")
            }
            return document
        }
        let leaf: X509Certificate
        let bundle: [X509Certificate]
        do {
            leaf = try X509Certificate(derEncoded: document.certificate)
            bundle = try document.cabundle.map { (der) throws(X509Error) in try X509Certificate(derEncoded: der) }
        } catch {
            throw NitroAttestationError(.malformed, "attestation certificate: \(error)")
        }
        let path: [X509Certificate]
        do {
            path = try X509ChainVerifier.verify(
                leaf: leaf, intermediates: bundle, pinnedRootSHA256: pinnedRootSHA256, at: date)
        } catch {
            throw NitroAttestationError(.untrustedCertificate, "attestation certificate chain: \(error)")
        }
        let publicKey: P384.Signing.PublicKey
        do {
            publicKey = try leaf.p384PublicKey()
        } catch {
            throw NitroAttestationError(.untrustedCertificate, "attestation leaf key: \(error)")
        }
        do {
            try message.verify(publicKey: publicKey)
        } catch {
            throw NitroAttestationError(.invalidSignature, "attestation document: \(error)")
        }
        // Cached only once the signature verified too: a chain is remembered for documents it signed.
        if let chainCache, let cacheKey { chainCache.insert(key: cacheKey, leafKey: publicKey, path: path) }
        return document
    }
}

/// Why an attestation document was refused.
public struct NitroAttestationError: CodedError, Sendable {
    /// Which step failed.
    public enum Code: String, Hashable, Sendable {
        /// The COSE envelope or the payload has the wrong shape or field types.
        case malformed
        /// The certificate chain does not verify to the pinned root at the given time.
        case untrustedCertificate
        /// The COSE signature does not verify under the leaf's key.
        case invalidSignature
    }
    /// Which step failed.
    public let code: Code
    /// Details.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
