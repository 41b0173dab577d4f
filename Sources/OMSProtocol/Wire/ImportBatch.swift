import TextFormats

/// The recipient key and HPKE encapsulation shared by every item of a `Waas/ImportWallets` batch;
/// binary fields are canonical base64.
public struct BatchKeyMaterial: Codable, Hashable, Sendable {
    public var keyId: String
    public var suite: String
    public var encapsulatedKey: String
    public init(keyId: String, suite: String, encapsulatedKey: String) {
        self.keyId = keyId
        self.suite = suite
        self.encapsulatedKey = encapsulatedKey
    }
}

/// One key of a batch: item `i` is the HPKE context's message with sequence number `i`, sealed with
/// `ImportBinding.batchAAD(index: i, networkFamily:reference:)` (docs/import.md "Batched import").
public struct ImportWalletsItem: Codable, Hashable, Sendable {
    /// The JSON bytes an item takes in a request (its comma included), before it is sealed: the sealed
    /// key is the key and a 16-byte tag, in base64; the reference is escaped as `JSONByteWriter` does.
    public static func encodedSize(keyBytes: Int, networkFamily: NetworkFamily, reference: String?) -> Int {
        // {"networkFamily":"","ciphertext":""},  and  ,"reference":""  when there is one.
        let fixed = 37 + networkFamily.rawValue.utf8.count
        let sealed = (keyBytes + 16 + 2) / 3 * 4
        guard let reference else { return fixed + sealed }
        return fixed + sealed + 15 + JSONString.escapedByteCount(reference)
    }

    public var networkFamily: NetworkFamily
    public var reference: String?
    /// The sealed key with its tag, canonical base64.
    public var ciphertext: String
    public init(networkFamily: NetworkFamily, reference: String? = nil, ciphertext: String) {
        self.networkFamily = networkFamily
        self.reference = reference
        self.ciphertext = ciphertext
    }
}

/// `Waas/ImportWallets {keyMaterial, wallets}` -> `{results}`: a walletops extension that imports 1 to
/// ``maxWallets`` keys sealed to one recipient key, in one attested reply (docs/import.md).
public struct ImportWalletsRequest: Codable, Hashable, Sendable {
    /// The most items one request may carry. Each request pays two ES384 attestations (the recipient
    /// key's and the reply's), about a tenth of an import's CPU at 1,000 keys per request; at 4,000 the
    /// share is a quarter of that (docs/import.md "Batch size").
    public static let maxWallets = 4000

    /// The items to reserve room for when reading a request or reply of `bytes` bytes: no item or result
    /// takes fewer than 40, and never more than ``maxWallets`` (a one-key reply does not reserve 4,000).
    static func expectedItems(inBytes bytes: Int) -> Int { min(maxWallets, bytes / 40 + 1) }

    /// The bytes a client lets one request's `wallets` take: the served core refuses bodies above 1 MiB
    /// (`WaasService.maxBodyBytes`), and the key material and braces need well under 4 KiB.
    public static let maxWalletsBytes = (1 << 20) - 4096

    public var keyMaterial: BatchKeyMaterial
    public var wallets: [ImportWalletsItem]
    public init(keyMaterial: BatchKeyMaterial, wallets: [ImportWalletsItem]) {
        self.keyMaterial = keyMaterial
        self.wallets = wallets
    }
}

/// The error of one item of a batch: the code, name and message a single-key call would answer with.
public struct ImportItemError: Codable, Hashable, Sendable {
    public var code: Int
    public var name: String
    public var message: String
    public init(code: Int, name: String, message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    /// The error as the service would have answered a single call.
    public init(_ error: WaasError) {
        self.init(code: error.code.code, name: error.code.name, message: error.message)
    }

    /// Back to a `WaasError`; an unknown code keeps its number and name.
    public var waasError: WaasError {
        WaasError(WaasErrorCode.known(code) ?? WaasErrorCode(code: code, name: name, httpStatus: 400), message)
    }
}

/// The result of one item, in request order: `{wallet}` when imported, `{error, wallet?}` when not. With
/// AddressAlreadyImported (7313), `wallet` is the caller's own wallet that holds the address, and is
/// absent when another account holds it.
public struct ImportWalletsResult: Codable, Hashable, Sendable {
    public var wallet: Wallet?
    public var error: ImportItemError?
    public init(wallet: Wallet? = nil, error: ImportItemError? = nil) {
        self.wallet = wallet
        self.error = error
    }
}

/// The reply of `Waas/ImportWallets`: one result per item, in request order.
public struct ImportWalletsResponse: Codable, Hashable, Sendable {
    public var results: [ImportWalletsResult]
    public init(results: [ImportWalletsResult]) { self.results = results }
}
