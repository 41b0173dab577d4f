/// A wallet that was just created or imported, and the session now using it.
public struct OMSWalletActivation: Hashable, Sendable {
    /// The new wallet.
    public let wallet: Wallet
    /// The session with the new wallet active (same expiry and auth metadata as before).
    public let session: OMSWalletActiveSession
}
