import Foundation
import OMSProtocol

/// The completed-session metadata as `session.json` holds it. It names the credential (a public key)
/// but never holds its private key.
struct StoredSession: Codable, Hashable, Sendable {
    static let currentVersion = 1

    var version: Int
    var projectId: String
    /// The credential id: the 0x04 hex P-256 public key of the signing key.
    var credentialId: String
    var walletId: String
    var walletAddress: String
    var walletType: WalletType
    var keyOrigin: KeyOrigin
    var reference: String?
    /// RFC 3339 UTC, as the service sent it.
    var expiresAt: String
    var auth: OMSWalletAuthMetadata

    var expiryDate: Date? { RFC3339.date(expiresAt) }

    var wallet: Wallet {
        Wallet(
            id: walletId, address: walletAddress, networkFamily: walletType.networkFamily, keyOrigin: keyOrigin,
            type: walletType, reference: reference)
    }

    /// The same session with another wallet active.
    func activating(_ wallet: Wallet) -> StoredSession {
        var copy = self
        copy.walletId = wallet.id
        copy.walletAddress = wallet.address
        copy.walletType = wallet.walletType
        copy.keyOrigin = wallet.keyOrigin
        copy.reference = wallet.reference
        return copy
    }

    var state: OMSWalletSessionState {
        OMSWalletSessionState(
            walletAddress: walletAddress, expiresAt: expiryDate, auth: auth, walletId: walletId,
            walletType: walletType, keyOrigin: keyOrigin)
    }
}
