/// `Waas/SignMessage {network, walletId, message}` -> `{signature}`.
public struct SignMessageRequest: Codable, Hashable, Sendable {
    /// The chain id as a decimal string.
    public var network: String
    public var walletId: String
    public var message: String
    public init(network: String, walletId: String, message: String) {
        self.network = network
        self.walletId = walletId
        self.message = message
    }
}

public struct SignMessageResponse: Codable, Hashable, Sendable {
    public var signature: String
    public init(signature: String) { self.signature = signature }
}

/// `WaasPublic/IsValidMessageSignature` -> `{isValid}`.
public struct IsValidMessageSignatureRequest: Codable, Hashable, Sendable {
    public var network: String
    public var networkFamily: NetworkFamily
    public var walletAddress: String
    public var message: String
    public var signature: String
    public init(
        network: String, networkFamily: NetworkFamily, walletAddress: String, message: String, signature: String
    ) {
        self.network = network
        self.networkFamily = networkFamily
        self.walletAddress = walletAddress
        self.message = message
        self.signature = signature
    }
}

public struct IsValidMessageSignatureResponse: Codable, Hashable, Sendable {
    public var isValid: Bool
    public init(isValid: Bool) { self.isValid = isValid }
}
