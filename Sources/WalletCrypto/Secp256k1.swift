internal import CSecp256k1
internal import CSodium
public import Foundation

/// ECDSA on secp256k1 (SEC 2), through libsecp256k1: keys, recoverable signatures and Ethereum addresses.
///
/// See <https://www.secg.org/sec2-v2.pdf> and <https://github.com/bitcoin-core/secp256k1>.
public enum Secp256k1 {
    /// The curve order n, big-endian; a private key is a scalar in [1, n-1].
    public static let curveOrder: [UInt8] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
        0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
    ]

    /// The process-wide libsecp256k1 context, created and randomized once.
    ///
    /// libsecp256k1 allows concurrent use of a context by API calls that take it as `const`; only
    /// `secp256k1_context_randomize` mutates it, and that runs once here before publication.
    final class Context: @unchecked Sendable {  // read-only after randomization in init
        let pointer: OpaquePointer

        static let shared = Context()

        private init() {
            guard let context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)) else {
                fatalError("secp256k1_context_create failed")
            }
            // Side-channel blinding: a fresh random seed for the context's scalar multiplications.
            var seed = [UInt8](repeating: 0, count: 32)
            randombytes_buf(&seed, 32)
            let randomized = secp256k1_context_randomize(context, seed)
            SecretBytes.wipe(&seed)
            precondition(randomized == 1, "secp256k1_context_randomize failed")
            pointer = context
        }
    }
}

extension Secp256k1 {
    /// A secp256k1 private key: a scalar in [1, n-1], held in `SecretBytes`.
    ///
    /// The public key is computed once at initialization.
    public struct PrivateKey: Sendable, CustomStringConvertible {
        let secret: SecretBytes
        /// The matching public key.
        public let publicKey: PublicKey

        /// Validates a 32-byte big-endian scalar and derives its public key.
        ///
        /// - Throws: `ECCError` `.invalidKeyLength` (not 32 bytes), `.privateKeyIsZero`, or
        ///   `.privateKeyOutOfRange` (>= the curve order n). The message never shows the key.
        public init(_ secret: SecretBytes) throws(ECCError) {
            guard secret.count == 32 else {
                throw ECCError(
                    .invalidKeyLength, "secp256k1 private key: expected 32 bytes, got \(secret.count)")
            }
            let ctx = Context.shared.pointer
            var pubkey = secp256k1_pubkey()
            let ok = secret.withUnsafeBytes { raw in
                let key = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                return secp256k1_ec_pubkey_create(ctx, &pubkey, key)
            }
            guard ok == 1 else { throw Self.rejection(secret) }
            self.secret = secret
            self.publicKey = PublicKey(validated: pubkey)
        }

        /// A fresh random key from the system CSPRNG.
        public static func generate() -> PrivateKey {
            while true {
                // A random 256-bit value is out of range with probability about 2^-128.
                if let key = try? PrivateKey(SecretBytes.random(count: 32)) { return key }
            }
        }

        /// The Ethereum address of this key's public key.
        public var ethereumAddress: EthereumAddress { publicKey.ethereumAddress }

        /// The raw 32-byte scalar, for export into an encrypted store. Handle with care.
        public var secretBytes: SecretBytes { secret }

        /// Never shows the key: only the public address.
        public var description: String { "Secp256k1.PrivateKey(address: \(ethereumAddress), redacted)" }

        /// Says why libsecp256k1 refused a 32-byte scalar (only ever run on an invalid key).
        static func rejection(_ secret: SecretBytes) -> ECCError {
            secret.withUnsafeBytes { raw in
                if raw.allSatisfy({ $0 == 0 }) {
                    return ECCError(.privateKeyIsZero, "secp256k1 private key: the scalar is zero")
                }
                if !raw.lexicographicallyPrecedes(Secp256k1.curveOrder) {
                    return ECCError(
                        .privateKeyOutOfRange,
                        "secp256k1 private key: the scalar is not below the curve order n")
                }
                return ECCError(.privateKeyOutOfRange, "secp256k1 private key: refused by libsecp256k1")
            }
        }
    }
}

extension Secp256k1 {
    /// A secp256k1 public key (a curve point, never the point at infinity).
    public struct PublicKey: Sendable, Hashable, CustomStringConvertible {
        /// X || Y, 32 bytes each, big-endian.
        public let rawRepresentation: [UInt8]

        init(validated pubkey: secp256k1_pubkey) {
            var pubkey = pubkey
            var out = [UInt8](repeating: 0, count: 65)
            var length = 65
            _ = secp256k1_ec_pubkey_serialize(
                Context.shared.pointer, &out, &length, &pubkey, UInt32(SECP256K1_EC_UNCOMPRESSED))
            rawRepresentation = Array(out[1..<65])
        }

        /// Parses a public key: 64 bytes X||Y, 65 bytes `04 || X || Y`, or 33 bytes compressed (`02`/`03 || X`).
        ///
        /// - Throws: `ECCError.Code.invalidPublicKey` if the length is wrong or the point is not on the curve.
        public init(bytes: some ContiguousBytes) throws(ECCError) {
            var input = bytes.withUnsafeBytes { Array($0) }
            if input.count == 64 { input.insert(0x04, at: 0) }
            guard input.count == 33 || input.count == 65 else {
                throw ECCError(
                    .invalidPublicKey, "secp256k1 public key: expected 33, 64 or 65 bytes, got \(input.count)")
            }
            var pubkey = secp256k1_pubkey()
            guard secp256k1_ec_pubkey_parse(Context.shared.pointer, &pubkey, input, input.count) == 1 else {
                throw ECCError(.invalidPublicKey, "secp256k1 public key: not a valid point on the curve")
            }
            self.init(validated: pubkey)
        }

        /// `04 || X || Y` (65 bytes, SEC 1 uncompressed).
        public var uncompressedRepresentation: [UInt8] { [0x04] + rawRepresentation }

        /// `02`/`03 || X` (33 bytes, SEC 1 compressed): the prefix carries the parity of Y.
        public var compressedRepresentation: [UInt8] {
            var out = [UInt8](repeating: 0, count: 33)
            out[0] = 0x02 | (rawRepresentation[63] & 1)
            out.replaceSubrange(1..<33, with: rawRepresentation[0..<32])
            return out
        }

        /// The Ethereum address: the last 20 bytes of keccak256(X || Y).
        public var ethereumAddress: EthereumAddress { EthereumAddress(publicKey: self) }

        public var description: String { "Secp256k1.PublicKey(\(Base16.encode(compressedRepresentation)))" }

        /// The libsecp256k1 form of this key, for verification and serialization calls.
        func withParsed<R>(_ body: (inout secp256k1_pubkey) -> R) -> R {
            var pubkey = secp256k1_pubkey()
            let input = uncompressedRepresentation
            let parsed = secp256k1_ec_pubkey_parse(Context.shared.pointer, &pubkey, input, 65)
            precondition(parsed == 1, "a validated secp256k1 public key failed to parse")
            return body(&pubkey)
        }
    }
}

extension Secp256k1 {
    /// Checks that `digest` is 32 bytes and passes a pointer to it to `body`.
    static func withDigest<R>(
        _ digest: some ContiguousBytes, _ body: (UnsafePointer<UInt8>) throws(ECCError) -> R
    ) throws(ECCError) -> R {
        let bytes = digest.withUnsafeBytes { Array($0) }
        guard bytes.count == 32 else {
            throw ECCError(.invalidDigestLength, "secp256k1: the digest must be 32 bytes, got \(bytes.count)")
        }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(ECCError) -> R in try body(buffer.baseAddress!) }
    }
}
