/// An EVM network by name and chain id (OMS-REFERENCE "Networks").
public struct Network: Hashable, Sendable, CustomStringConvertible {
    /// The SDK's name for the network, e.g. `polygonAmoy`.
    public let name: String
    /// The EIP-155 chain id.
    public let chainId: UInt64

    public init(name: String, chainId: UInt64) {
        self.name = name
        self.chainId = chainId
    }

    public static let mainnet = Network(name: "mainnet", chainId: 1)
    public static let sepolia = Network(name: "sepolia", chainId: 11_155_111)
    public static let polygon = Network(name: "polygon", chainId: 137)
    public static let polygonAmoy = Network(name: "polygonAmoy", chainId: 80_002)
    public static let arbitrum = Network(name: "arbitrum", chainId: 42_161)
    public static let arbitrumSepolia = Network(name: "arbitrumSepolia", chainId: 421_614)
    public static let optimism = Network(name: "optimism", chainId: 10)
    public static let optimismSepolia = Network(name: "optimismSepolia", chainId: 11_155_420)
    public static let base = Network(name: "base", chainId: 8_453)
    public static let baseSepolia = Network(name: "baseSepolia", chainId: 84_532)
    public static let bsc = Network(name: "bsc", chainId: 56)
    public static let bscTestnet = Network(name: "bscTestnet", chainId: 97)
    public static let arbitrumNova = Network(name: "arbitrumNova", chainId: 42_170)
    public static let avalanche = Network(name: "avalanche", chainId: 43_114)
    public static let avalancheTestnet = Network(name: "avalancheTestnet", chainId: 43_113)
    public static let katana = Network(name: "katana", chainId: 747_474)

    /// Every network the reference names.
    public static let all: [Network] = [
        .mainnet, .sepolia, .polygon, .polygonAmoy, .arbitrum, .arbitrumSepolia, .optimism, .optimismSepolia,
        .base, .baseSepolia, .bsc, .bscTestnet, .arbitrumNova, .avalanche, .avalancheTestnet, .katana,
    ]

    /// A network by name (`amoy` is an alias of `polygonAmoy`, matching is case-insensitive) or by
    /// decimal chain id.
    public init?(nameOrChainId text: String) {
        let lowered = text.lowercased()
        if lowered == "amoy" {
            self = .polygonAmoy
        } else if let found = Network.all.first(where: { $0.name.lowercased() == lowered }) {
            self = found
        } else if let id = UInt64(text), let found = Network.all.first(where: { $0.chainId == id }) {
            self = found
        } else {
            return nil
        }
    }

    /// The network's native token: its name, symbol and decimals (wei: 18 on every EVM network named).
    public var nativeCurrency: (name: String, symbol: String, decimals: Int) {
        switch chainId {
        case 137, 80_002: ("Polygon Ecosystem Token", "POL", 18)
        case 56, 97: ("BNB", "BNB", 18)
        case 43_114, 43_113: ("Avalanche", "AVAX", 18)
        default: ("Ether", "ETH", 18)
        }
    }

    /// The chain id as the wire carries it: a decimal string.
    public var wireChainId: String { String(chainId) }

    public var description: String { name }
}
