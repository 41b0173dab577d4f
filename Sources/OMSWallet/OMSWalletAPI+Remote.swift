import Foundation
import OMSProtocol

extension OMSWalletAPI {
    /// The display metadata a remote credential registered (app name, URL, logo), to show the wallet
    /// owner before asking for approval. A public call: it needs no session.
    public func inspectRemoteCredential(credentialId: String) async throws -> CredentialMetadata {
        let operation = "wallet.inspectRemoteCredential"
        guard !credentialId.isEmpty else { throw OMSWalletError.validation(operation, "credentialId is empty") }
        do {
            return try await publicClient.call(
                .inspectCredential,
                InspectCredentialRequest(scope: publishableKey.projectId, credentialId: credentialId),
                as: InspectCredentialResponse.self
            ).metadata
        } catch {
            throw OMSWalletError.wrap(error, operation: operation)
        }
    }

    /// Authorizes a bounded EVM smart session for a remote credential on the active Ethereum wallet.
    ///
    /// - Parameters:
    ///   - network: the chain, e.g. `.polygonAmoy`.
    ///   - grants: at least one; addresses 0x + 40 hex; limits canonical unsigned decimals in base units
    ///     (native-transfer limits are cumulative, in wei).
    ///   - expiresAt: RFC 3339; the service caps it at the remote credential's expiry.
    /// - Returns: the session id and the effective expiry.
    public func authorizeRemoteAccess(
        credentialId: String, network: Network, grants: [Grant], expiresAt: String
    ) async throws -> RemoteAccessAuthorization {
        let operation = "wallet.authorizeRemoteAccess"
        guard !credentialId.isEmpty else { throw OMSWalletError.validation(operation, "credentialId is empty") }
        guard !grants.isEmpty else { throw OMSWalletError.validation(operation, "at least one grant is required") }
        for (index, grant) in grants.enumerated() {
            try Self.validate(grant, at: index, operation: operation)
        }
        guard RFC3339.date(expiresAt) != nil else {
            throw OMSWalletError.validation(operation, "expiresAt is not an RFC 3339 time")
        }
        return try await perform(operation) { session in
            guard session.stored.walletType == .ethereum else {
                throw OMSWalletError.validation(operation, "remote access needs an active Ethereum wallet")
            }
            let reply = try await session.client.call(
                .authorizeRemoteAccess,
                AuthorizeRemoteAccessRequest(
                    credentialId: credentialId, walletId: session.walletId, grants: grants, expiry: expiresAt,
                    chainId: network.wireChainId),
                as: AuthorizeRemoteAccessResponse.self)
            return RemoteAccessAuthorization(sessionId: reply.sessionId, expiresAt: reply.expiry)
        }
    }

    /// A remote smart session: wallet, signer, grants, chain and expiry.
    public func getRemoteAccessSession(sessionId: String) async throws -> RemoteSession {
        let operation = "wallet.getRemoteAccessSession"
        guard !sessionId.isEmpty else { throw OMSWalletError.validation(operation, "sessionId is empty") }
        return try await perform(operation) { session in
            try await session.client.call(
                .getSession, GetSessionRequest(sessionId: sessionId), as: GetSessionResponse.self
            ).session
        }
    }

    /// What a remote smart session has spent on a network, per grant.
    public func getRemoteAccessSessionUsage(sessionId: String, network: Network) async throws -> RemoteAccessUsage {
        let operation = "wallet.getRemoteAccessSessionUsage"
        guard !sessionId.isEmpty else { throw OMSWalletError.validation(operation, "sessionId is empty") }
        return try await perform(operation) { session in
            let reply = try await session.client.call(
                .getSessionUsage, GetSessionUsageRequest(sessionId: sessionId, network: network.wireChainId),
                as: GetSessionUsageResponse.self)
            return RemoteAccessUsage(sessionId: sessionId, network: network, entries: reply.entries)
        }
    }

    /// Checks a grant as the reference states: known kind, 0x + 40 hex addresses, canonical decimal limits.
    static func validate(_ grant: Grant, at index: Int, operation: String) throws(OMSWalletError) {
        func address(_ text: String, _ field: String) throws(OMSWalletError) {
            let hex = text.utf8.dropFirst(2)
            guard text.hasPrefix("0x"), hex.count == 40,
                hex.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) })
            else { throw OMSWalletError.validation(operation, "grants[\(index)].\(field) is not 0x + 40 hex digits") }
        }
        func amount(_ text: String, _ field: String) throws(OMSWalletError) {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), text == "0" || !text.hasPrefix("0")
            else {
                throw OMSWalletError.validation(
                    operation, "grants[\(index)].\(field) is not a canonical unsigned decimal")
            }
        }
        switch grant.kind {
        case .nativeTransfer:
            guard let native = grant.nativeTransfer else {
                throw OMSWalletError.validation(operation, "grants[\(index)]: nativeTransfer is missing")
            }
            try address(native.to, "nativeTransfer.to")
            try amount(native.limit, "nativeTransfer.limit")
        case .erc20Transfer:
            guard let erc20 = grant.erc20Transfer else {
                throw OMSWalletError.validation(operation, "grants[\(index)]: erc20Transfer is missing")
            }
            try address(erc20.token, "erc20Transfer.token")
            if let to = erc20.to { try address(to, "erc20Transfer.to") }
            try amount(erc20.limit, "erc20Transfer.limit")
        case .unknown(let kind):
            throw OMSWalletError.validation(operation, "grants[\(index)]: kind \(kind) is not supported")
        }
    }
}
