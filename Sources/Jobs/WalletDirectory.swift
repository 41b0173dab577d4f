import OMSProtocol

/// The account's wallets by reference and by address: listed once per run (all pages) and listed again
/// when an answer may be stale (a create or import whose reply was lost, an address already imported).
///
/// This is the probe of the wallet jobs: a reference (create) or an address (import) found here is an
/// effect that already happened, so a resumed run never creates or imports it twice.
public actor WalletDirectory {
    private let client: WaasClient
    private var byReference: [String: Wallet] = [:]
    private var byAddress: [String: Wallet] = [:]
    /// How many times the wallets were listed (for tests and the run's outputs).
    public private(set) var listings = 0

    /// An empty directory; call ``refresh()`` before the first lookup.
    public init(client: WaasClient) { self.client = client }

    /// A directory listed once.
    public static func load(client: WaasClient) async throws -> WalletDirectory {
        let directory = WalletDirectory(client: client)
        try await directory.refresh()
        return directory
    }

    /// Lists every wallet again.
    public func refresh() async throws {
        let wallets = try await CoreConnection.allWallets(client)
        listings += 1
        var references: [String: Wallet] = [:]
        var addresses: [String: Wallet] = [:]
        for wallet in wallets {
            // The first wallet with a reference wins: the jobs never create a second one.
            if let reference = wallet.reference, references[reference] == nil { references[reference] = wallet }
            addresses[Self.addressKey(wallet.address)] = wallet
        }
        byReference = references
        byAddress = addresses
    }

    /// The wallet with `reference`, if any.
    public func wallet(reference: String) -> Wallet? { byReference[reference] }

    /// The wallet with `address` (EVM addresses compare without case), if any.
    public func wallet(address: String) -> Wallet? { byAddress[Self.addressKey(address)] }

    /// Records a wallet this run made.
    public func record(_ wallet: Wallet) {
        if let reference = wallet.reference, byReference[reference] == nil { byReference[reference] = wallet }
        byAddress[Self.addressKey(wallet.address)] = wallet
    }

    static func addressKey(_ address: String) -> String {
        address.hasPrefix("0x") || address.hasPrefix("0X") ? address.lowercased() : address
    }
}
