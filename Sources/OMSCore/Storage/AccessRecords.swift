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

/// What a period's usage is summed from: one executed session transfer.
struct ExecutedTransfer: Sendable {
    var token: String?
    var to: String
    var amount: TokenAmount
    /// The allowance it spent; nil for a transfer executed before migration 10.
    var grantKey: String?
}

/// A transaction of the local ledger: prepared (wire `quoted`), then executed (signed and recorded).
struct TransferRecord: Sendable {
    var id: String
    var walletId: String
    /// The remote session that pays; "" for the wallet owner's own transaction.
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
    /// 0x call data of a contract call other than an ERC-20 transfer (`to` is then the contract and
    /// `amount` the wei sent).
    var callData: String? = nil
    var mode: TransactionMode = .native
    /// The Solana cluster as the client named it; nil for EVM (`chainId` says it).
    var network: String? = nil

    /// The stored status `prepared` is the schema's `quoted`.
    var wireStatus: TransactionStatusResponse {
        TransactionStatusResponse(
            status: status == "prepared" ? "quoted" : status, txnHash: txHash, txnId: id, rawTransaction: rawTransaction
        )
    }
}
