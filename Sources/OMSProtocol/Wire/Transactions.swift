/// `Waas/PrepareEthereumTransaction` -> `{transactionId, ...}`: a transfer from a wallet, checked and held
/// until `Execute`.
///
/// A native transfer sends `value` (wei); an ERC-20 transfer sends `amount` of `token` instead. Amounts
/// are canonical unsigned decimals (docs/protocol.md "Spending within a session").
public struct PrepareEthereumTransactionRequest: Codable, Hashable, Sendable {
    public var walletId: String
    /// The chain id as a decimal string.
    public var network: String
    /// The remote session the transfer spends from.
    public var sessionId: String?
    /// The receiver: 0x + 40 hex digits.
    public var to: String
    /// Wei to send (native transfer).
    public var value: String?
    /// The ERC-20 contract (token transfer).
    public var token: String?
    /// Token base units to send (token transfer).
    public var amount: String?

    public init(
        walletId: String, network: String, sessionId: String? = nil, to: String, value: String? = nil,
        token: String? = nil, amount: String? = nil
    ) {
        self.walletId = walletId
        self.network = network
        self.sessionId = sessionId
        self.to = to
        self.value = value
        self.token = token
        self.amount = amount
    }

    /// A native transfer of `value` wei within a session.
    public static func nativeTransfer(walletId: String, network: String, sessionId: String, to: String, value: String)
        -> PrepareEthereumTransactionRequest
    {
        PrepareEthereumTransactionRequest(
            walletId: walletId, network: network, sessionId: sessionId, to: to, value: value)
    }

    /// An ERC-20 transfer of `amount` base units of `token` within a session.
    public static func erc20Transfer(
        walletId: String, network: String, sessionId: String, token: String, to: String, amount: String
    ) -> PrepareEthereumTransactionRequest {
        PrepareEthereumTransactionRequest(
            walletId: walletId, network: network, sessionId: sessionId, to: to, token: token, amount: amount)
    }
}

/// A prepared transfer: what `Execute` will sign and record, and until when.
public struct PrepareEthereumTransactionResponse: Codable, Hashable, Sendable {
    public var transactionId: String
    /// `prepared`.
    public var status: String
    /// The wallet's address.
    public var from: String
    public var to: String
    public var value: String?
    public var token: String?
    public var amount: String?
    public var chainId: String
    /// RFC 3339 UTC: Execute after this answers TransactionExpired.
    public var expiresAt: String

    public init(
        transactionId: String, status: String, from: String, to: String, value: String? = nil, token: String? = nil,
        amount: String? = nil, chainId: String, expiresAt: String
    ) {
        self.transactionId = transactionId
        self.status = status
        self.from = from
        self.to = to
        self.value = value
        self.token = token
        self.amount = amount
        self.chainId = chainId
        self.expiresAt = expiresAt
    }
}

/// `Waas/Execute {transactionId}` -> `{transactionId, txHash, status}`.
public struct ExecuteRequest: Codable, Hashable, Sendable {
    public var transactionId: String
    public init(transactionId: String) { self.transactionId = transactionId }
}

/// The state of a transaction: the reply of Execute and TransactionStatus.
public struct TransactionStatusResponse: Codable, Hashable, Sendable {
    public var transactionId: String
    /// `prepared` or `executed`.
    public var status: String
    /// The keccak-256 of the signed transaction, once executed.
    public var txHash: String?
    /// The signed EIP-1559 transaction (0x hex), once executed.
    public var rawTransaction: String?

    public init(transactionId: String, status: String, txHash: String? = nil, rawTransaction: String? = nil) {
        self.transactionId = transactionId
        self.status = status
        self.txHash = txHash
        self.rawTransaction = rawTransaction
    }
}

/// `Waas/TransactionStatus {transactionId}` -> `{transactionId, status, txHash?}`.
public struct TransactionStatusRequest: Codable, Hashable, Sendable {
    public var transactionId: String
    public init(transactionId: String) { self.transactionId = transactionId }
}
