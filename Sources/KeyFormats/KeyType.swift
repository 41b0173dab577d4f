import TextFormats

/// The kind of key an import carries: the wallet type it becomes (OMS `WalletType`).
public enum KeyType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A secp256k1 scalar; the wallet address is the Ethereum address of its public key.
    case ethereum
    /// An Ed25519 seed (or seed || public key); the wallet address is base58 of the public key.
    case solana

    /// Reads a `type` cell: `ethereum` (also `evm`) or `solana`, any case, ASCII whitespace trimmed.
    public init?(cell: some StringProtocol) {
        switch cell.trimmingASCIIWhitespace().lowercased() {
        case "ethereum", "evm": self = .ethereum
        case "solana": self = .solana
        default: return nil
        }
    }

    public var description: String { rawValue }
}

extension StringProtocol {
    /// Without leading and trailing ASCII whitespace (`ASCII.isWhitespace`).
    func trimmingASCIIWhitespace() -> String {
        String(decoding: ASCII.trimmed(Array(utf8)), as: UTF8.self)
    }
}
