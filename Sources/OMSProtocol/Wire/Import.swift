/// `Waas/GetRecipientKey {purpose: "wallet-import", suite}` -> `{keyId, publicKey}`.
public struct GetRecipientKeyRequest: Codable, Hashable, Sendable {
    public var purpose: String
    /// e.g. `p256-sha256-aes256gcm` (the default), `x25519-sha256-chacha20poly1305`.
    public var suite: String
    public init(purpose: String = "wallet-import", suite: String) {
        self.purpose = purpose
        self.suite = suite
    }
}

public struct GetRecipientKeyResponse: Codable, Hashable, Sendable {
    public var keyId: String
    /// The recipient's public key, canonical base64.
    public var publicKey: String
    public init(keyId: String, publicKey: String) {
        self.keyId = keyId
        self.publicKey = publicKey
    }
}

/// The HPKE-sealed private key of an import; binary fields are canonical base64.
public struct KeyMaterial: Codable, Hashable, Sendable {
    public var keyId: String
    public var suite: String
    public var encapsulatedKey: String
    public var ciphertext: String
    public init(keyId: String, suite: String, encapsulatedKey: String, ciphertext: String) {
        self.keyId = keyId
        self.suite = suite
        self.encapsulatedKey = encapsulatedKey
        self.ciphertext = ciphertext
    }
}

/// `Waas/ImportWallet {networkFamily, format: "private-key", reference?, keyMaterial}` -> `{wallet}`.
public struct ImportWalletRequest: Codable, Hashable, Sendable {
    public var networkFamily: NetworkFamily
    public var format: String
    public var reference: String?
    public var keyMaterial: KeyMaterial
    public init(
        networkFamily: NetworkFamily, format: String = "private-key", reference: String? = nil, keyMaterial: KeyMaterial
    ) {
        self.networkFamily = networkFamily
        self.format = format
        self.reference = reference
        self.keyMaterial = keyMaterial
    }
}
