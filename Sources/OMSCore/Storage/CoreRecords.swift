import OMSProtocol

/// The service environment of a project: what attestation and keys are pinned to.
public enum CoreEnvironment: String, Sendable, CaseIterable {
    case development, staging, production
}

/// A project: the scope of signed requests and the owner of accounts and wallets.
public struct ProjectRecord: Sendable, Hashable {
    public var id: String
    public var name: String
    public var publishableKey: String
    public var environment: CoreEnvironment
}

/// A signed-in (or remote) credential.
struct CredentialRecord: Sendable {
    var id: String
    var projectId: String
    var accountId: String?
    var type: CredentialType
    var algorithm: String
    var metadataJSON: String?
    var createdAt: Int64
    var expiresAt: Int64
    var revokedAt: Int64?
}

/// An account: one identity (issuer, subject) in a project.
struct AccountRecord: Sendable {
    var id: String
    var projectId: String
    var issuer: String
    var subject: String
    var email: String?
}

/// A wallet row; the sealed key stays in the store until a signing call opens it.
struct WalletRecord: Sendable {
    var seq: Int64
    var id: String
    var accountId: String
    var type: WalletType
    var address: String
    var reference: String?
    var keyOrigin: KeyOrigin

    var wire: Wallet {
        Wallet(
            id: id, address: address, networkFamily: type.networkFamily, keyOrigin: keyOrigin, type: type,
            reference: reference)
    }
}
