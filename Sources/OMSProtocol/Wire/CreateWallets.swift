/// `Waas/CreateWallets {networkFamily, references}` -> `{wallets: [{wallet, created}]}`: a walletops
/// extension of the OMS protocol (docs/protocol.md "CreateWallets").
///
/// One signed request creates up to ``maxReferences`` wallets. A reference the caller's account already
/// has answers that wallet with `created: false` instead of a new one, so a repeated or resumed batch
/// creates nothing twice.
public struct CreateWalletsRequest: Codable, Hashable, Sendable {
    /// The most references one request may carry.
    public static let maxReferences = 1000

    public var networkFamily: NetworkFamily
    /// 1...``maxReferences`` distinct references, each at most 128 UTF-8 bytes; the reply keeps this order.
    public var references: [String]

    public init(networkFamily: NetworkFamily, references: [String]) {
        self.networkFamily = networkFamily
        self.references = references
    }
}

/// The reply of `Waas/CreateWallets`: one entry per requested reference, in request order.
public struct CreateWalletsResponse: Codable, Hashable, Sendable {
    public var wallets: [CreatedWallet]
    public init(wallets: [CreatedWallet]) { self.wallets = wallets }
}

/// A wallet of a `CreateWallets` reply: `created` is false when the account already had the reference.
public struct CreatedWallet: Codable, Hashable, Sendable {
    public var wallet: Wallet
    /// True when this request made the wallet; false when it existed (the exactly-once probe).
    public var created: Bool

    public init(wallet: Wallet, created: Bool) {
        self.wallet = wallet
        self.created = created
    }
}
