/// The kinds of private key `walletops` reads.
public enum KeyType: String, CaseIterable, Sendable {
    /// A secp256k1 private key; its address is the EIP-55 Ethereum address.
    case ethereum
    /// An Ed25519 seed or keypair; its address is the base58 public key.
    case solana

    /// The choices of a `--type` option.
    public static var choices: [String] { allCases.map(\.rawValue) }
}
