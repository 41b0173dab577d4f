import Foundation
import OMSProtocol

/// A credential that can make signed requests for a wallet.
public struct WalletCredential: Hashable, Sendable {
    /// The credential id: a 0x04 hex P-256 key (device) or an Ethereum address (remote).
    public let credentialId: String
    /// `direct` or `remote`.
    public let type: CredentialType
    /// Whether this is the credential making the request (this SDK's own session).
    public let isCaller: Bool
    /// RFC 3339 UTC.
    public let expiresAt: String
    /// Display metadata of a remote credential.
    public let metadata: CredentialMetadata?
    /// When the grant was revoked (RFC 3339 UTC): set only in listings asked with `includeRevoked`
    /// (a walletops extension, docs/protocol.md); nil for a live grant.
    public let revokedAt: String?

    init(_ info: CredentialInfo) {
        credentialId = info.credentialId
        type = info.type
        isCaller = info.isCaller
        expiresAt = info.expiresAt
        metadata = info.metadata
        revokedAt = info.revokedAt
    }
}

/// A remote smart session on a wallet: the remote credential, the session id and its grants.
public struct RemoteAccess: Hashable, Sendable {
    /// The remote credential.
    public let credential: WalletCredential
    /// The session id; `revokeAccess(credentialId:sessionId:)` revokes exactly this session.
    public let sessionId: String
    /// The remote credential's display metadata (an empty app name when the service sent none).
    public let metadata: CredentialMetadata
    /// What the session may do.
    public let grants: [Grant]
}

/// An access grant on the active wallet: a direct credential or a remote smart session.
public enum AccessGrant: Hashable, Sendable {
    /// A direct credential of the wallet's account (a device, this SDK among them).
    case direct(WalletCredential)
    /// A remote smart session.
    case remote(RemoteAccess)

    /// The grant's credential.
    public var credential: WalletCredential {
        switch self {
        case .direct(let credential): credential
        case .remote(let remote): remote.credential
        }
    }

    /// Reads a ListAccess entry; a remote one must carry its session id.
    init(_ info: CredentialInfo) throws(WaasClientError) {
        switch info.type {
        case .remote:
            guard let sessionId = info.sessionId, !sessionId.isEmpty else {
                throw WaasClientError(
                    .invalidResponse, method: .listAccess, "ListAccess: a remote credential without sessionId")
            }
            self = .remote(
                RemoteAccess(
                    credential: WalletCredential(info), sessionId: sessionId,
                    metadata: info.metadata ?? CredentialMetadata(appName: ""),
                    grants: info.grants ?? []))
        default:
            self = .direct(WalletCredential(info))
        }
    }
}

/// One server page of access grants.
public struct AccessPage: Hashable, Sendable {
    /// The grants of this page, in the service's order.
    public let grants: [AccessGrant]
    /// The cursor of the next page; nil on the last page.
    public let nextCursor: String?
}

/// The access grants of the active wallet, one server page at a time (`for try await page in ...`).
public struct AccessPageSequence: AsyncSequence, Sendable {
    /// One server page.
    public typealias Element = AccessPage

    let api: OMSWalletAPI
    let pageSize: Int?
    let type: CredentialType?
    var includeRevoked = false

    /// Fetches the next page when asked; ends after the page without a next cursor.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: AccessPageSequence
        var cursor: String?
        var finished = false

        /// The next page, or nil after the last one. Throws `OMSWalletError`.
        public mutating func next() async throws -> AccessPage? {
            guard !finished else { return nil }
            let page = try await sequence.api.listAccessPage(
                pageSize: sequence.pageSize, cursor: cursor, type: sequence.type,
                includeRevoked: sequence.includeRevoked)
            cursor = page.nextCursor
            finished = page.nextCursor == nil
            return page
        }
    }

    /// An iterator from the first page.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sequence: self) }
}
