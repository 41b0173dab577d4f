public import Foundation

/// EIP-191 version 0x45 ("personal_sign") messages: hash, sign, recover and verify.
///
/// The signed digest is keccak256("\u{19}Ethereum Signed Message:\n" + decimal byte length + message).
/// See <https://eips.ethereum.org/EIPS/eip-191>.
public enum EIP191 {
    /// The digest signed for `message`.
    public static func hash(message: some ContiguousBytes) -> [UInt8] {
        message.withUnsafeBytes { body in
            var hasher = Keccak256.Hasher()
            hasher.update(Array("\u{19}Ethereum Signed Message:\n\(body.count)".utf8))
            hasher.update(bytes: body)
            return hasher.finalize()
        }
    }

    /// The digest signed for the UTF-8 bytes of `message`.
    public static func hash(message: String) -> [UInt8] {
        hash(message: Array(message.utf8))
    }

    /// Signs `message` as `personal_sign` does; `bytes(vOffset: 27)` gives the usual wire form.
    public static func sign(message: some ContiguousBytes, with key: Secp256k1.PrivateKey)
        -> Secp256k1
        .RecoverableSignature
    {
        // The digest is always 32 bytes, so signing cannot fail on its length.
        try! key.signature(forDigest: hash(message: message))
    }

    /// The address whose key signed `message`.
    ///
    /// - Throws: `ECCError.Code.recoveryFailed` if no key recovers.
    public static func recoverAddress(message: some ContiguousBytes, signature: Secp256k1.RecoverableSignature)
        throws(ECCError) -> EthereumAddress
    {
        try Secp256k1.PublicKey(recoveringFrom: signature, digest: hash(message: message)).ethereumAddress
    }

    /// Whether `signature` over `message` was made by the key of `address`.
    public static func verify(
        message: some ContiguousBytes, signature: Secp256k1.RecoverableSignature, address: EthereumAddress
    ) -> Bool {
        let digest = hash(message: message)
        guard let key = try? Secp256k1.PublicKey(recoveringFrom: signature, digest: digest) else { return false }
        // Recovery alone accepts high-S twins; verifying refuses them (EIP-2).
        return key.isValidSignature(signature, digest: digest) && key.ethereumAddress == address
    }
}
