import Foundation
import OMSProtocol

/// The session right after a wallet was activated (sign-in, `useWallet`, a completed selection): the
/// same facts as `OMSWalletSessionState`, none of them optional.
public struct OMSWalletActiveSession: Hashable, Sendable {
    /// The active wallet.
    public let wallet: Wallet
    /// When the session's credential expires.
    public let expiresAt: Date
    /// How the session was authenticated.
    public let auth: OMSWalletAuthMetadata

    /// The active wallet's address.
    public var walletAddress: String { wallet.address }
    /// The active wallet's id.
    public var walletId: String { wallet.id }
    /// The active wallet's type.
    public var walletType: WalletType { wallet.walletType }
    /// Where the active wallet's key came from.
    public var keyOrigin: KeyOrigin { wallet.keyOrigin }

    /// The same session as `OMSWalletAPI.session` shows it.
    public var state: OMSWalletSessionState {
        OMSWalletSessionState(
            walletAddress: wallet.address, expiresAt: expiresAt, auth: auth, walletId: wallet.id,
            walletType: wallet.walletType, keyOrigin: wallet.keyOrigin)
    }
}
