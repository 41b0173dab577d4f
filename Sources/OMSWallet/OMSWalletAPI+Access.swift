import Foundation
import OMSProtocol

extension OMSWalletAPI {
    /// Every access grant on the active wallet: all ListAccess pages, concatenated.
    ///
    /// - Parameter includeRevoked: also revoked grants, each with its `revokedAt` (a walletops extension
    ///   for reports, docs/protocol.md; a service without it lists live grants only).
    public func listAccess(type: CredentialType? = nil, includeRevoked: Bool = false) async throws -> [AccessGrant] {
        var grants: [AccessGrant] = []
        for try await page in listAccessPages(type: type, includeRevoked: includeRevoked) { grants += page.grants }
        return grants
    }

    /// The access grants of the active wallet as an async sequence of server pages.
    ///
    /// - Parameter pageSize: grants per page (1...100); the core's default (50) when nil.
    public func listAccessPages(pageSize: Int? = nil, type: CredentialType? = nil, includeRevoked: Bool = false)
        -> AccessPageSequence
    {
        AccessPageSequence(api: self, pageSize: pageSize, type: type, includeRevoked: includeRevoked)
    }

    /// One page of access grants. `page` is left out of the request when `pageSize` and `cursor` are
    /// both nil; the result's `nextCursor` is nil on the last page (a nil, empty or blank cursor).
    /// `includeRevoked` asks for revoked grants too (walletops extension; never sent when false).
    public func listAccessPage(
        pageSize: Int? = nil, cursor: String? = nil, type: CredentialType? = nil, includeRevoked: Bool = false
    ) async throws -> AccessPage {
        let operation = "wallet.listAccessPage"
        if let pageSize, !(1...100).contains(pageSize) {
            throw OMSWalletError.validation(operation, "pageSize must be 1...100, got \(pageSize)")
        }
        return try await perform(operation) { session in
            let reply = try await session.client.call(
                .listAccess,
                ListAccessRequest(
                    walletId: session.walletId, page: Page.optional(limit: pageSize, cursor: cursor), type: type,
                    includeRevoked: includeRevoked ? true : nil),
                as: ListAccessResponse.self)
            return AccessPage(
                grants: try reply.credentials.map { info throws(WaasClientError) in try AccessGrant(info) },
                nextCursor: reply.page?.hasMore == true ? reply.page?.cursor : nil)
        }
    }

    /// Revokes a direct credential's access to the active wallet. Revoking this SDK's own credential
    /// (`isCaller`) ends the local session too. Revocation cannot be undone.
    public func revokeAccess(credentialId: String) async throws {
        try await revoke(credentialId: credentialId, sessionId: nil)
    }

    /// Revokes exactly one remote smart session of a remote credential.
    public func revokeAccess(credentialId: String, sessionId: String) async throws {
        guard !sessionId.isEmpty else {
            throw OMSWalletError.validation("wallet.revokeAccess", "sessionId is empty")
        }
        try await revoke(credentialId: credentialId, sessionId: sessionId)
    }

    private func revoke(credentialId: String, sessionId: String?) async throws {
        let operation = "wallet.revokeAccess"
        guard !credentialId.isEmpty else { throw OMSWalletError.validation(operation, "credentialId is empty") }
        let revokedCaller = try await perform(operation) { session in
            _ = try await session.client.call(
                .revokeAccess,
                RevokeAccessRequest(targetCredentialId: credentialId, walletId: session.walletId, sessionId: sessionId),
                as: OKResponse.self)
            return credentialId.lowercased() == session.stored.credentialId.lowercased()
        }
        // The caller's own credential no longer works: keeping the session would only fail later.
        if revokedCaller { try endSession(operation: operation) }
    }
}
