import KeyFormats

/// The one mapping between KeyFormats' closed key-type enum and the wire's open network family: an
/// Ethereum key is a wallet of the `evm` family, a Solana key one of the `solana` family.
extension NetworkFamily {
    /// The network family of wallets whose key is of `type`.
    public init(_ type: KeyType) {
        switch type {
        case .ethereum: self = .evm
        case .solana: self = .solana
        }
    }
}

extension KeyType {
    /// The key type of wallets of `family`; nil for a family this build does not know (`unknown`).
    public init?(_ family: NetworkFamily) {
        switch family {
        case .evm: self = .ethereum
        case .solana: self = .solana
        case .unknown: return nil
        }
    }
}

extension WalletType {
    /// The wire's wallet type of a key of `type`.
    public init(_ type: KeyType) {
        switch type {
        case .ethereum: self = .ethereum
        case .solana: self = .solana
        }
    }
}
