public import WalletCrypto

/// The accounts of one recovery phrase: the seed computed once, the steps before the index derived once,
/// then each index's key (BIP-32 for Ethereum, SLIP-10 for Solana).
public enum PhraseAccounts {
    /// One derived account: its index, its path and its key, validated for import.
    public struct Account: Sendable {
        /// The account index (the `{i}` of the path).
        public let index: UInt32
        /// The full path of this account.
        public let path: DerivationPath
        /// The key (`description` shows no byte of it).
        public let secret: ValidatedSecret
    }

    /// The keys of `indices` along `scheme` for the phrase and passphrase.
    ///
    /// - Throws: `KeyFormatError` `.invalidPath` when the scheme does not fit `type` (a layout of the
    ///   other chain, a normal step on Ed25519, which SLIP-10 does not define), `.invalidIndices` for an
    ///   index the scheme has not, `.invalidPassphrase`, `.invalidKey` when BIP-32 gives no key for an
    ///   index (probability below 2^-127).
    public static func derive(
        _ mnemonic: Mnemonic, passphrase: SecretBytes, type: KeyType, scheme: DerivationScheme, indices: [UInt32]
    ) throws(KeyFormatError) -> [Account] {
        try check(scheme, type: type)
        let steps = try indices.map { (index) throws(KeyFormatError) in try scheme.indexStep(index) }
        let paths = try indices.map { (index) throws(KeyFormatError) in try scheme.path(index: index) }
        let seed = try mnemonic.seed(passphrase: passphrase)
        do {
            switch type {
            case .ethereum:
                let parent = try BIP32.ExtendedPrivateKey(seed: seed).derive(DerivationPath(scheme.prefix))
                return try indices.indices.map { (position) throws(CryptoError) in
                    var node = parent
                    if let step = steps[position] { node = try node.child(step) }
                    node = try node.derive(DerivationPath(scheme.suffix))
                    return Account(
                        index: indices[position], path: paths[position],
                        secret: ValidatedSecret(type: .ethereum, secret: node.privateKey.secretBytes))
                }
            case .solana:
                let parent = try SLIP10.Ed25519Node(seed: seed).derive(DerivationPath(scheme.prefix))
                return try indices.indices.map { (position) throws(CryptoError) in
                    var node = parent
                    if let step = steps[position] { node = try node.child(step) }
                    node = try node.derive(DerivationPath(scheme.suffix))
                    return Account(
                        index: indices[position], path: paths[position],
                        secret: ValidatedSecret(type: .solana, secret: node.secretBytes))
                }
            }
        } catch {
            throw KeyFormatError(.invalidKey, "the phrase's key along \(scheme) cannot be derived: \(error.message)")
        }
    }

    /// Refuses a scheme that does not fit `type`.
    static func check(_ scheme: DerivationScheme, type: KeyType) throws(KeyFormatError) {
        if let layout = scheme.layout, layout.keyType != type {
            throw KeyFormatError(
                .invalidPath,
                "the layout \(layout.rawValue) derives \(layout.keyType) keys, but the row's type is \(type)")
        }
        if type == .solana {
            let normal =
                scheme.prefix + scheme.suffix + (scheme.indexHardened == false ? [.init(0, hardened: false)] : [])
            if let step = normal.first(where: { !$0.isHardened }) {
                let shown =
                    scheme.indexHardened == false && !(scheme.prefix + scheme.suffix).contains(step) ? "{i}" : "\(step)"
                throw KeyFormatError(
                    .invalidPath,
                    "\(scheme.templateText): Solana keys derive by SLIP-10, which has hardened steps only for Ed25519 "
                        + "(an Ed25519 secret is hashed into its scalar, so no child follows from a public key); "
                        + "step \(shown) must be hardened (\(shown)')")
            }
        }
    }
}
