import Foundation

/// Hybrid Public Key Encryption, base mode (RFC 9180 section 5.1.1).
///
/// Supported: DHKEM(P-256, HKDF-SHA256) and DHKEM(X25519, HKDF-SHA256); HKDF-SHA256; AES-128-GCM,
/// AES-256-GCM, ChaCha20-Poly1305 and the export-only AEAD. A `Sender` encapsulates to a recipient's
/// public key and seals messages in order; the matching `Recipient` opens them in the same order.
public enum HPKE {
    /// A key encapsulation mechanism (RFC 9180 section 7.1).
    public enum KEM: UInt16, Sendable, CaseIterable {
        /// DHKEM(P-256, HKDF-SHA256).
        case p256HKDFSHA256 = 0x0010
        /// DHKEM(X25519, HKDF-SHA256).
        case x25519HKDFSHA256 = 0x0020

        /// The size of an encapsulated key and of a serialized public key.
        public var encapsulatedKeySize: Int { self == .p256HKDFSHA256 ? 65 : 32 }
        /// The size of a serialized private key.
        public var privateKeySize: Int { 32 }
    }

    /// A key derivation function (RFC 9180 section 7.2).
    public enum KDF: UInt16, Sendable, CaseIterable {
        /// HKDF-SHA256.
        case hkdfSHA256 = 0x0001
    }

    /// An AEAD (RFC 9180 section 7.3).
    public enum AEAD: UInt16, Sendable, CaseIterable {
        case aes128GCM = 0x0001
        case aes256GCM = 0x0002
        case chaCha20Poly1305 = 0x0003
        /// No encryption: the context can only export secrets.
        case exportOnly = 0xFFFF

        /// Nk: the key size in bytes.
        public var keySize: Int {
            switch self {
            case .aes128GCM: 16
            case .aes256GCM, .chaCha20Poly1305: 32
            case .exportOnly: 0
            }
        }

        /// Nn: the nonce size in bytes.
        public var nonceSize: Int { self == .exportOnly ? 0 : 12 }
    }

    /// A KEM, KDF and AEAD combination.
    public struct Suite: Sendable, Hashable {
        /// The key encapsulation mechanism.
        public let kem: KEM
        /// The key derivation function.
        public let kdf: KDF
        /// The AEAD, or `.exportOnly`.
        public let aead: AEAD

        /// A suite from its three algorithms.
        public init(kem: KEM, kdf: KDF = .hkdfSHA256, aead: AEAD) {
            self.kem = kem
            self.kdf = kdf
            self.aead = aead
        }

        /// DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM.
        public static let p256SHA256AES128GCM = Suite(kem: .p256HKDFSHA256, aead: .aes128GCM)
        /// DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305.
        public static let x25519SHA256ChaChaPoly = Suite(kem: .x25519HKDFSHA256, aead: .chaCha20Poly1305)

        /// `suite_id` for the key schedule: "HPKE" || kem_id || kdf_id || aead_id.
        var identifier: [UInt8] {
            Array("HPKE".utf8) + HPKE.i2osp(kem.rawValue) + HPKE.i2osp(kdf.rawValue) + HPKE.i2osp(aead.rawValue)
        }
    }

    /// A serialized KEM key pair (RFC 9180 section 7.1.1).
    public struct KeyPair: Sendable {
        /// SerializePrivateKey: the 32-byte scalar (P-256) or X25519 private key.
        public let privateKey: SecretBytes
        /// SerializePublicKey: the 65-byte uncompressed point (P-256) or 32-byte X25519 key.
        public let publicKey: [UInt8]
    }
}

extension HPKE {
    /// I2OSP(value, 2): two big-endian bytes.
    static func i2osp(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }
}
