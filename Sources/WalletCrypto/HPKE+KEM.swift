import Foundation

/// HKDF-SHA256 labeled with "HPKE-v1" and a suite id (RFC 9180 section 4).
struct HPKELabeledKDF {
    let suiteIdentifier: [UInt8]

    /// LabeledExtract(salt, label, ikm) = Extract(salt, "HPKE-v1" || suite_id || label || ikm).
    func extract(salt: [UInt8], label: String, ikm: SecretBytes) -> SecretBytes {
        var labeled = Array("HPKE-v1".utf8) + suiteIdentifier + Array(label.utf8) + ikm.unsafeCopy()
        defer { SecretBytes.wipe(&labeled) }
        return HKDF.extract(salt: salt, inputKeyMaterial: SecretBytes(labeled))
    }

    /// LabeledExpand(prk, label, info, L) = Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L).
    func expand(prk: SecretBytes, label: String, info: [UInt8], length: Int) throws -> SecretBytes {
        guard length >= 0, length <= HKDF.maximumLength else {
            throw CryptoError(.invalidParameter, "HPKE: output length \(length) is above \(HKDF.maximumLength)")
        }
        let labeled = HPKE.i2osp(UInt16(length)) + Array("HPKE-v1".utf8) + suiteIdentifier + Array(label.utf8) + info
        return try HKDF.expand(pseudoRandomKey: prk, info: labeled, length: length)
    }
}

/// A KEM private key, typed by its curve.
enum HPKEPrivateKey {
    case p256(P256.KeyAgreement.PrivateKey)
    case x25519(X25519.PrivateKey)

    init(_ kem: HPKE.KEM, serialized: SecretBytes) throws {
        switch kem {
        case .p256HKDFSHA256: self = .p256(try P256.KeyAgreement.PrivateKey(rawRepresentation: serialized))
        case .x25519HKDFSHA256: self = .x25519(try X25519.PrivateKey(rawRepresentation: serialized))
        }
    }

    /// SerializePublicKey(pk(sk)).
    var publicKey: [UInt8] {
        switch self {
        case .p256(let key): key.publicKey.x963Representation
        case .x25519(let key): key.publicKey.rawRepresentation
        }
    }

    var serialized: SecretBytes {
        switch self {
        case .p256(let key): key.rawRepresentation
        case .x25519(let key): key.rawRepresentation
        }
    }

    /// DH(sk, pk) with a serialized peer public key; DeserializePublicKey validates it.
    func diffieHellman(with serializedPeer: [UInt8]) throws -> SecretBytes {
        switch self {
        case .p256(let key):
            return try key.sharedSecret(with: P256.KeyAgreement.PublicKey(x963Representation: serializedPeer))
        case .x25519(let key):
            return try key.sharedSecret(with: X25519.PublicKey(rawRepresentation: serializedPeer))
        }
    }
}

extension HPKE.KEM {
    /// `suite_id` for the KEM: "KEM" || I2OSP(kem_id, 2).
    var kdf: HPKELabeledKDF { HPKELabeledKDF(suiteIdentifier: Array("KEM".utf8) + HPKE.i2osp(rawValue)) }

    /// A fresh random key pair.
    public func generateKeyPair() throws -> HPKE.KeyPair {
        try deriveKeyPair(inputKeyMaterial: SecretBytes.random(count: privateKeySize))
    }

    /// DeriveKeyPair(ikm) (RFC 9180 section 7.1.3): deterministic keys from input keying material.
    ///
    /// - Throws: `CryptoError.invalidParameter` when `ikm` is shorter than 32 bytes.
    public func deriveKeyPair(inputKeyMaterial ikm: SecretBytes) throws -> HPKE.KeyPair {
        let key = try derivePrivateKey(ikm)
        return HPKE.KeyPair(privateKey: key.serialized, publicKey: key.publicKey)
    }

    func derivePrivateKey(_ ikm: SecretBytes) throws -> HPKEPrivateKey {
        guard ikm.count >= privateKeySize else {
            throw CryptoError(.invalidParameter, "HPKE DeriveKeyPair: ikm must be at least \(privateKeySize) bytes")
        }
        let prk = kdf.extract(salt: [], label: "dkp_prk", ikm: ikm)
        switch self {
        case .x25519HKDFSHA256:
            return .x25519(
                try X25519.PrivateKey(rawRepresentation: kdf.expand(prk: prk, label: "sk", info: [], length: 32)))
        case .p256HKDFSHA256:
            // Rejection sampling: candidates outside [1, n-1] are skipped (bitmask 0xFF for P-256).
            for counter in 0...255 {
                let candidate = try kdf.expand(prk: prk, label: "candidate", info: [UInt8(counter)], length: 32)
                if let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: candidate) { return .p256(key) }
            }
            throw CryptoError(.libraryFailure, "HPKE DeriveKeyPair: no valid P-256 scalar in 256 candidates")
        }
    }

    /// ExtractAndExpand(dh, kem_context): the KEM shared secret (Nsecret = 32 bytes).
    func extractAndExpand(dh: SecretBytes, kemContext: [UInt8]) throws -> SecretBytes {
        let prk = kdf.extract(salt: [], label: "eae_prk", ikm: dh)
        return try kdf.expand(prk: prk, label: "shared_secret", info: kemContext, length: 32)
    }

    /// Encap(pkR) with the ephemeral key `ephemeral`: (shared_secret, enc).
    func encapsulate(to recipient: [UInt8], ephemeral: HPKEPrivateKey) throws -> (SecretBytes, [UInt8]) {
        guard recipient.count == encapsulatedKeySize else {
            throw CryptoError(
                .invalidKey,
                "HPKE: the recipient public key must be \(encapsulatedKeySize) bytes, got \(recipient.count)")
        }
        let dh = try ephemeral.diffieHellman(with: recipient)
        let enc = ephemeral.publicKey
        return (try extractAndExpand(dh: dh, kemContext: enc + recipient), enc)
    }

    /// Decap(enc, skR): shared_secret.
    func decapsulate(_ enc: [UInt8], recipient: HPKEPrivateKey) throws -> SecretBytes {
        guard enc.count == encapsulatedKeySize else {
            throw CryptoError(
                .invalidKey, "HPKE: the encapsulated key must be \(encapsulatedKeySize) bytes, got \(enc.count)")
        }
        let dh = try recipient.diffieHellman(with: enc)
        return try extractAndExpand(dh: dh, kemContext: enc + recipient.publicKey)
    }
}
