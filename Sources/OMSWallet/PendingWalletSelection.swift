import Foundation
import OMSProtocol
import WalletCrypto

/// A sign-in whose account has several wallets of the wanted type: the app picks one and completes it
/// with `OMSWalletAPI.completeWalletSelection(_:walletId:)`.
///
/// It lives in memory only (never in the storage scope) and can be completed once. A newer sign-in or a
/// sign-out makes it stale.
public final class PendingWalletSelection: Sendable, CustomStringConvertible {
    /// The wallets of the wanted type to choose from.
    public let wallets: [Wallet]
    /// The wallet type sign-in looked for.
    public let walletType: WalletType
    /// When the signed-in credential expires.
    public let expiresAt: Date
    /// How the session was authenticated.
    public let auth: OMSWalletAuthMetadata

    let id = UUID()
    let key: P256.Signing.PrivateKey
    /// The client that signed in with `key` (its nonce source continues).
    let client: WaasClient
    let credentialId: String
    let expiresAtText: String

    init(
        wallets: [Wallet], walletType: WalletType, expiresAt: Date, expiresAtText: String, auth: OMSWalletAuthMetadata,
        key: P256.Signing.PrivateKey, client: WaasClient, credentialId: String
    ) {
        self.client = client
        self.wallets = wallets
        self.walletType = walletType
        self.expiresAt = expiresAt
        self.expiresAtText = expiresAtText
        self.auth = auth
        self.key = key
        self.credentialId = credentialId
    }

    /// Names the wallets, never the credential key.
    public var description: String {
        "PendingWalletSelection(\(wallets.count) \(walletType) wallets: \(wallets.map(\.address).joined(separator: ", ")))"
    }
}

/// The outcome of a sign-in.
public enum OMSWalletSignInResult: Sendable {
    /// A wallet is active.
    case active(OMSWalletActiveSession)
    /// The account has several wallets of the wanted type: choose one.
    case walletSelection(PendingWalletSelection)

    /// The active session, or nil when a selection is pending.
    public var session: OMSWalletActiveSession? {
        if case .active(let session) = self { return session }
        return nil
    }
}
