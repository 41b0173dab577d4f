import WalletCrypto

/// `native` (the wallet pays its fee) or `relayer` (someone else pays: the reply is `sponsored`).
public enum TransactionMode: OpenEnum {
    case native, relayer, unknown(String)
    public static let known: [TransactionMode] = [.native, .relayer]
    public var rawValue: String {
        switch self {
        case .native: "native"
        case .relayer: "relayer"
        case .unknown(let raw): raw
        }
    }
}

/// `Waas/PrepareEthereumTransaction {network, walletId, to, value, data?, mode, sessionId?}` ->
/// ``PrepareResponse``: a transaction from a wallet, checked and held until `Execute`.
///
/// The schema's shape, plus a walletops extra for token transfers within a session: `token` and
/// `amount` instead of `value` (the same as `data` holding ERC-20 `transfer(to, amount)` to `token`).
/// Amounts are canonical unsigned decimals (docs/protocol.md "Transactions").
public struct PrepareEthereumTransactionRequest: Codable, Hashable, Sendable {
    public var walletId: String
    /// The chain id as a decimal string.
    public var network: String
    /// The remote session the transaction spends from; absent for the wallet's owner.
    public var sessionId: String?
    /// The receiver (or the contract called): 0x + 40 hex digits.
    public var to: String
    /// Wei to send.
    public var value: String?
    /// Call data, 0x hex.
    public var data: String?
    public var mode: TransactionMode?
    /// walletops extra: the ERC-20 contract of a token transfer.
    public var token: String?
    /// walletops extra: token base units to send.
    public var amount: String?

    public init(
        walletId: String, network: String, sessionId: String? = nil, to: String, value: String? = nil,
        data: String? = nil, mode: TransactionMode? = nil, token: String? = nil, amount: String? = nil
    ) {
        self.walletId = walletId
        self.network = network
        self.sessionId = sessionId
        self.to = to
        self.value = value
        self.data = data
        self.mode = mode
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

/// One argument of a contract call: its ABI type and its value (a string, number or boolean).
public struct AbiArg: Codable, Hashable, Sendable {
    public var type: String
    public var value: JSONValue
    public init(type: String, value: JSONValue) {
        self.type = type
        self.value = value
    }
}

/// `Waas/PrepareEthereumContractCall {network, walletId, contract, method, args?, mode, sessionId?}` ->
/// ``PrepareResponse``. `method` is a name (`transfer`, the signature then built from the argument
/// types) or a signature (`transfer(address,uint256)`).
public struct PrepareEthereumContractCallRequest: Codable, Hashable, Sendable {
    public var network: String
    public var walletId: String
    public var contract: String
    public var method: String
    public var args: [AbiArg]?
    public var mode: TransactionMode?
    public var sessionId: String?
    public init(
        network: String, walletId: String, contract: String, method: String, args: [AbiArg]? = nil,
        mode: TransactionMode? = nil, sessionId: String? = nil
    ) {
        self.network = network
        self.walletId = walletId
        self.contract = contract
        self.method = method
        self.args = args
        self.mode = mode
        self.sessionId = sessionId
    }
}

public struct SolanaRecipient: Codable, Hashable, Sendable {
    public var address: String
    public init(address: String) { self.address = address }
}

/// `Waas/PrepareSolanaTransfer {network, walletId, asset, recipient: {address}, amount, mode}` ->
/// ``PrepareResponse``: `amount` lamports of `SOL` (the only asset this core moves).
public struct PrepareSolanaTransferRequest: Codable, Hashable, Sendable {
    public var network: String
    public var walletId: String
    public var asset: String
    public var recipient: SolanaRecipient
    public var amount: String
    public var mode: TransactionMode?
    public init(
        network: String, walletId: String, asset: String, recipient: SolanaRecipient, amount: String,
        mode: TransactionMode? = nil
    ) {
        self.network = network
        self.walletId = walletId
        self.asset = asset
        self.recipient = recipient
        self.amount = amount
        self.mode = mode
    }
}

/// The token a fee is paid in.
public struct FeeToken: Codable, Hashable, Sendable {
    public var network: String
    public var name: String
    public var symbol: String
    public var type: String
    public var decimals: Int?
    public var logoURL: String?
    public var contractAddress: String?
    public var tokenID: String?
    public init(
        network: String, name: String, symbol: String, type: String, decimals: Int? = nil, logoURL: String? = nil,
        contractAddress: String? = nil, tokenID: String? = nil
    ) {
        self.network = network
        self.name = name
        self.symbol = symbol
        self.type = type
        self.decimals = decimals
        self.logoURL = logoURL
        self.contractAddress = contractAddress
        self.tokenID = tokenID
    }
}

/// A way to pay a transaction's fee: `value` base units of `token` (`displayValue` in whole tokens).
public struct FeeOption: Codable, Hashable, Sendable {
    public var token: FeeToken
    public var value: String
    public var displayValue: String
    public init(token: FeeToken, value: String, displayValue: String) {
        self.token = token
        self.value = value
        self.displayValue = displayValue
    }
}

/// The fee option Execute pays with: its token (symbol or contract address) and index.
public struct FeeOptionSelection: Codable, Hashable, Sendable {
    public var token: String
    public var index: Int?
    public init(token: String, index: Int? = nil) {
        self.token = token
        self.index = index
    }
}

/// `PrepareResponse {txnId, status, feeOptions, sponsored, expiresAt}`: a prepared (`quoted`)
/// transaction, plus walletops extras describing what Execute will sign.
public struct PrepareResponse: Codable, Hashable, Sendable {
    public var txnId: String
    /// `quoted`.
    public var status: String
    public var feeOptions: [FeeOption]
    public var sponsored: Bool
    /// RFC 3339 UTC: Execute after this answers TransactionExpired.
    public var expiresAt: String
    /// walletops extras: the wallet's address, the receiver, what moves, and the chain.
    public var from: String?
    public var to: String?
    public var value: String?
    public var token: String?
    public var amount: String?
    public var chainId: String?

    public init(
        txnId: String, status: String, feeOptions: [FeeOption], sponsored: Bool, expiresAt: String,
        from: String? = nil, to: String? = nil, value: String? = nil, token: String? = nil, amount: String? = nil,
        chainId: String? = nil
    ) {
        self.txnId = txnId
        self.status = status
        self.feeOptions = feeOptions
        self.sponsored = sponsored
        self.expiresAt = expiresAt
        self.from = from
        self.to = to
        self.value = value
        self.token = token
        self.amount = amount
        self.chainId = chainId
    }

    /// The transaction's id (`txnId`), by the name walletops used before it followed the schema.
    public var transactionId: String { txnId }
}

/// The reply of PrepareEthereumTransaction, by the name walletops used before the schema's.
public typealias PrepareEthereumTransactionResponse = PrepareResponse

/// `Waas/Execute {txnId, feeOption?}` -> `{status, ...}`.
public struct ExecuteRequest: Codable, Hashable, Sendable {
    public var txnId: String
    public var feeOption: FeeOptionSelection?
    public init(txnId: String, feeOption: FeeOptionSelection? = nil) {
        self.txnId = txnId
        self.feeOption = feeOption
    }

    public init(transactionId: String) { self.init(txnId: transactionId) }

    private enum CodingKeys: String, CodingKey { case txnId, feeOption, transactionId }

    /// `txnId`, or `transactionId` as walletops clients sent it before they followed the schema.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        txnId =
            try container.decodeIfPresent(String.self, forKey: .txnId)
            ?? container.decode(String.self, forKey: .transactionId)
        feeOption = try container.decodeIfPresent(FeeOptionSelection.self, forKey: .feeOption)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(txnId, forKey: .txnId)
        try container.encodeIfPresent(feeOption, forKey: .feeOption)
    }
}

/// The state of a transaction: the reply of Execute and TransactionStatus, `{status, txnHash?}` plus
/// walletops extras (`txnId`, the signed `rawTransaction`).
public struct TransactionStatusResponse: Codable, Hashable, Sendable {
    /// `quoted` (prepared, not executed) or `executed`.
    public var status: String
    /// The hash of the signed transaction, once executed: keccak-256 of the EIP-1559 envelope (EVM), the
    /// base58 signature (Solana, whose transaction id it is).
    public var txnHash: String?
    public var txnId: String?
    /// The signed transaction, once executed: 0x hex (EVM) or base64 (Solana).
    public var rawTransaction: String?

    public init(status: String, txnHash: String? = nil, txnId: String? = nil, rawTransaction: String? = nil) {
        self.status = status
        self.txnHash = txnHash
        self.txnId = txnId
        self.rawTransaction = rawTransaction
    }

    public init(transactionId: String, status: String, txHash: String? = nil, rawTransaction: String? = nil) {
        self.init(status: status, txnHash: txHash, txnId: transactionId, rawTransaction: rawTransaction)
    }

    /// `txnId`, by the name walletops used before the schema's.
    public var transactionId: String { txnId ?? "" }
    /// `txnHash`, by the name walletops used before the schema's.
    public var txHash: String? { txnHash }
}

/// `Waas/TransactionStatus {txnId}` -> ``TransactionStatusResponse``.
public struct TransactionStatusRequest: Codable, Hashable, Sendable {
    public var txnId: String
    public init(txnId: String) { self.txnId = txnId }
    public init(transactionId: String) { self.init(txnId: transactionId) }

    private enum CodingKeys: String, CodingKey { case txnId, transactionId }

    /// `txnId`, or `transactionId` as walletops clients sent it before.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        txnId =
            try container.decodeIfPresent(String.self, forKey: .txnId)
            ?? container.decode(String.self, forKey: .transactionId)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(txnId, forKey: .txnId)
    }
}
