import OMSProtocol
import WalletCrypto

/// A remote smart session: a remote credential's bounded access to one wallet.
struct SessionRecord: Sendable {
    var seq: Int64
    var id: String
    var accountId: String
    var credentialId: String
    var walletId: String
    var chainId: UInt64
    var grants: [Grant]
    var expiresAt: Int64
    var revokedAt: Int64?

    var wire: RemoteSession {
        RemoteSession(
            sessionId: id, walletId: walletId, signerAddress: credentialId, grants: grants, chainId: String(chainId),
            expiresAt: RFC3339.format(expiresAt), revokedAt: revokedAt.map(RFC3339.format))
    }
}

/// One row of a ListAccess page: a direct credential or a remote session.
struct AccessRow: Sendable {
    var seq: Int64
    var type: CredentialType
    var credentialId: String
    var sessionId: String?
    var grants: [Grant]?
    var expiresAt: Int64
    var metadata: CredentialMetadata?
    /// Set only when the page was asked with `includeRevoked`.
    var revokedAt: Int64? = nil

    func wire(caller: String) -> CredentialInfo {
        CredentialInfo(
            credentialId: credentialId, sessionId: sessionId, type: type, metadata: metadata, grants: grants,
            expiresAt: RFC3339.format(expiresAt), isCaller: type == .direct && credentialId == caller,
            revokedAt: revokedAt.map(RFC3339.format))
    }
}

/// A transfer in the local ledger.
struct TransferRecord: Sendable {
    var id: String
    var walletId: String
    var sessionId: String
    var credentialId: String
    var chainId: UInt64
    var token: String?
    var to: String
    var amount: TokenAmount
    var status: String
    var expiresAt: Int64
    var txHash: String?
    var rawTransaction: String?

    var wireStatus: TransactionStatusResponse {
        TransactionStatusResponse(transactionId: id, status: status, txHash: txHash, rawTransaction: rawTransaction)
    }
}
