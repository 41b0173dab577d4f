import WalletCrypto

/// `Waas/SignMessage {network, walletId, message}` -> `{signature}`.
///
/// The message is text: an Ethereum wallet signs its UTF-8 bytes as an EIP-191 personal message, a
/// Solana wallet signs them with Ed25519 (docs/protocol.md "Message signing").
public struct SignMessageRequest: Codable, Hashable, Sendable {
    /// The chain id as a decimal string (EVM); for a Solana wallet any cluster name is recorded as sent.
    public var network: String
    public var walletId: String
    public var message: String
    public init(network: String, walletId: String, message: String) {
        self.network = network
        self.walletId = walletId
        self.message = message
    }
}

/// `{signature}` replies of SignMessage and SignTypedData: 0x + 65 bytes r||s||v (v 27/28) for
/// Ethereum, base58 of the 64-byte Ed25519 signature for Solana.
public struct SignMessageResponse: Codable, Hashable, Sendable {
    public var signature: String
    public init(signature: String) { self.signature = signature }
}

/// `Waas/SignTypedData {network, walletId, typedData}` -> `{signature}`: EIP-712 typed data as JSON
/// (`{types, primaryType, domain, message}`), Ethereum wallets only.
public struct SignTypedDataRequest: Codable, Hashable, Sendable {
    public var network: String
    public var walletId: String
    public var typedData: JSONValue
    public init(network: String, walletId: String, typedData: JSONValue) {
        self.network = network
        self.walletId = walletId
        self.typedData = typedData
    }
}

/// `WaasPublic/IsValidMessageSignature` -> `{isValid}`: the wallet named by `walletId`, or by
/// `walletAddress` with `network` or `networkFamily` saying which kind of address it is.
public struct IsValidMessageSignatureRequest: Codable, Hashable, Sendable {
    public var network: String?
    public var networkFamily: NetworkFamily?
    public var walletAddress: String?
    public var walletId: String?
    public var message: String
    public var signature: String
    public init(
        network: String? = nil, networkFamily: NetworkFamily? = nil, walletAddress: String? = nil,
        walletId: String? = nil, message: String, signature: String
    ) {
        self.network = network
        self.networkFamily = networkFamily
        self.walletAddress = walletAddress
        self.walletId = walletId
        self.message = message
        self.signature = signature
    }
}

/// `{isValid}` replies of both public signature checks.
public struct IsValidMessageSignatureResponse: Codable, Hashable, Sendable {
    public var isValid: Bool
    public init(isValid: Bool) { self.isValid = isValid }
}

/// `WaasPublic/IsValidTypedDataSignature {network?, walletAddress?, walletId?, typedData, signature}`
/// -> `{isValid}`.
public struct IsValidTypedDataSignatureRequest: Codable, Hashable, Sendable {
    public var network: String?
    public var walletAddress: String?
    public var walletId: String?
    public var typedData: JSONValue
    public var signature: String
    public init(
        network: String? = nil, walletAddress: String? = nil, walletId: String? = nil, typedData: JSONValue,
        signature: String
    ) {
        self.network = network
        self.walletAddress = walletAddress
        self.walletId = walletId
        self.typedData = typedData
        self.signature = signature
    }
}
