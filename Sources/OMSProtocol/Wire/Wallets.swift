import WalletCrypto

/// `Waas/ListWallets {page?}` -> `{wallets, page?}`.
public struct ListWalletsRequest: Codable, Hashable, Sendable {
    public var page: Page?
    public init(page: Page? = nil) { self.page = page }
}

public struct ListWalletsResponse: Codable, Hashable, Sendable {
    public var wallets: [Wallet]
    public var page: Page?
    public init(wallets: [Wallet], page: Page? = nil) {
        self.wallets = wallets
        self.page = page
    }
}

/// `Waas/CreateWallet {networkFamily, reference?}` -> `{wallet}` (the SDK never sends `type`).
///
/// Both kinds are optional in the schema: newer clients send `networkFamily`, older ones `type`; a
/// request with neither creates an Ethereum (EVM) wallet, the schema's first kind.
public struct CreateWalletRequest: Codable, Hashable, Sendable {
    public var type: WalletType?
    public var networkFamily: NetworkFamily?
    /// `eoa` or `smart-wallet`; this core makes externally owned accounts only.
    public var implementation: String?
    public var reference: String?
    public init(networkFamily: NetworkFamily, reference: String? = nil) {
        self.networkFamily = networkFamily
        self.reference = reference
    }

    public init(
        type: WalletType? = nil, networkFamily: NetworkFamily? = nil, implementation: String? = nil,
        reference: String? = nil
    ) {
        self.type = type
        self.networkFamily = networkFamily
        self.implementation = implementation
        self.reference = reference
    }

    /// The family asked for: `networkFamily`, else the family of `type`, else EVM.
    public var resolvedNetworkFamily: NetworkFamily { networkFamily ?? type?.networkFamily ?? .evm }
}

/// `{wallet}` replies of CreateWallet, UseWallet and ImportWallet.
public struct WalletResponse: Codable, Hashable, Sendable {
    public var wallet: Wallet
    public init(wallet: Wallet) { self.wallet = wallet }
}

/// `Waas/UseWallet {walletId}` -> `{wallet}`.
public struct UseWalletRequest: Codable, Hashable, Sendable {
    public var walletId: String
    public init(walletId: String) { self.walletId = walletId }
}

/// `Waas/GetIDToken {walletId, ttlSeconds?, customClaims?}` -> `{idToken}`.
public struct GetIDTokenRequest: Codable, Hashable, Sendable {
    public var walletId: String
    public var ttlSeconds: Int?
    public var customClaims: [String: JSONValue]?
    public init(walletId: String, ttlSeconds: Int? = nil, customClaims: [String: JSONValue]? = nil) {
        self.walletId = walletId
        self.ttlSeconds = ttlSeconds
        self.customClaims = customClaims
    }
}

public struct GetIDTokenResponse: Codable, Hashable, Sendable {
    public var idToken: String
    public init(idToken: String) { self.idToken = idToken }
}
