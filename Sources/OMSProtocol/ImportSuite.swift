import WalletCrypto

/// The HPKE suites a recipient key for import can use, by their wire names.
///
/// See [RFC 9180](https://www.rfc-editor.org/rfc/rfc9180): every suite is base mode with HKDF-SHA256.
public enum ImportSuite: String, Sendable, CaseIterable, Codable {
    /// DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM: the default.
    case p256SHA256AES256GCM = "p256-sha256-aes256gcm"
    /// DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305.
    case p256SHA256ChaCha20Poly1305 = "p256-sha256-chacha20poly1305"
    /// DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-256-GCM.
    case x25519SHA256AES256GCM = "x25519-sha256-aes256gcm"
    /// DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305.
    case x25519SHA256ChaCha20Poly1305 = "x25519-sha256-chacha20poly1305"

    /// The suite a client uses when none is named.
    public static let `default` = ImportSuite.p256SHA256AES256GCM

    /// The KEM, KDF and AEAD of this suite.
    public var hpke: HPKE.Suite {
        switch self {
        case .p256SHA256AES256GCM: HPKE.Suite(kem: .p256HKDFSHA256, aead: .aes256GCM)
        case .p256SHA256ChaCha20Poly1305: HPKE.Suite(kem: .p256HKDFSHA256, aead: .chaCha20Poly1305)
        case .x25519SHA256AES256GCM: HPKE.Suite(kem: .x25519HKDFSHA256, aead: .aes256GCM)
        case .x25519SHA256ChaCha20Poly1305: HPKE.Suite(kem: .x25519HKDFSHA256, aead: .chaCha20Poly1305)
        }
    }
}

/// What a sealed import key is bound to, so it opens only for the request it was sealed for
/// (docs/import.md "The HPKE binding").
///
/// - `info` (bound into the HPKE key schedule) = `"walletops/import/v1:" + keyId`: the ciphertext opens
///   only with the recipient key it was sealed to, under that key's id.
/// - `aad` (authenticated by the AEAD) = `"walletops/import/v1\nnetworkFamily: <family>"`, followed by
///   `"\nreference: <reference>"` when the request has a reference: a sealed key cannot be replayed into
///   another wallet type or under another reference. The reference comes last, so no value of it can
///   imitate another field.
public enum ImportBinding {
    /// The protocol label that starts both strings.
    public static let label = "walletops/import/v1"

    /// The HPKE `info` for a recipient key.
    public static func info(keyId: String) -> [UInt8] {
        Array("\(label):\(keyId)".utf8)
    }

    /// The AEAD associated data for an import request's network family and reference.
    public static func aad(networkFamily: NetworkFamily, reference: String?) -> [UInt8] {
        var text = "\(label)\nnetworkFamily: \(networkFamily.rawValue)"
        if let reference { text += "\nreference: \(reference)" }
        return Array(text.utf8)
    }

    /// The label of a batch item's associated data: unlike ``label``, so a batch item never opens as a
    /// single import, nor the other way round.
    public static let batchLabel = "walletops/import/v1/batch"

    /// The AEAD associated data of item `index` of a `Waas/ImportWallets` batch:
    /// `"walletops/import/v1/batch\nindex: <index>\nnetworkFamily: <family>"`, then
    /// `"\nreference: <reference>"` when the item has one. The index binds the item to its position (it
    /// is also its HPKE sequence number), so items cannot be reordered or swapped between positions.
    public static func batchAAD(index: Int, networkFamily: NetworkFamily, reference: String?) -> [UInt8] {
        // Bytes appended in place: built once per item on each side, an interpolated String cost more.
        var out: [UInt8] = []
        out.reserveCapacity(64 + (reference?.utf8.count ?? 0))
        out.append(contentsOf: batchLabel.utf8)
        out.append(contentsOf: "\nindex: ".utf8)
        out.append(contentsOf: String(index).utf8)
        out.append(contentsOf: "\nnetworkFamily: ".utf8)
        out.append(contentsOf: networkFamily.rawValue.utf8)
        if let reference {
            out.append(contentsOf: "\nreference: ".utf8)
            out.append(contentsOf: reference.utf8)
        }
        return out
    }
}
