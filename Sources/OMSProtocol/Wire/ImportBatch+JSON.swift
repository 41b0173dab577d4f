import WalletCrypto

/// The ImportWallets reply written and read without Foundation's Codable JSON, which cost several
/// microseconds per result on each side (a third of a batch's CPU beyond the key's own work). The text
/// is the same JSON the synthesized `Codable` gives (members in declaration order, absent optionals
/// left out); either decoder reads either.
extension ImportWalletsResponse {
    /// The reply as compact JSON.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONByteWriter(capacity: 64 + 220 * results.count)
        writer.beginObject()
        writer.beginArray("results")
        for result in results {
            writer.beginObject()
            if let wallet = result.wallet {
                writer.key("wallet")
                wallet.write(to: &writer)
            }
            if let error = result.error {
                writer.key("error")
                writer.beginObject()
                writer.member("code", error.code)
                writer.member("name", error.name)
                writer.member("message", error.message)
                writer.endObject()
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// Reads a reply; every member is type-checked as the synthesized decoder would.
    ///
    /// - Throws: `ImportWalletsResponse.DecodingError` naming the member at fault.
    public init(jsonBytes bytes: [UInt8]) throws(DecodingError) {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            throw DecodingError("reply is not JSON: \(error)")
        }
        guard let list = root["results"]?.arrayValue else { throw DecodingError("results: expected an array") }
        var results: [ImportWalletsResult] = []
        results.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            results.append(try ImportWalletsResult(json: item, path: "results[\(index)]"))
        }
        self.init(results: results)
    }

    /// A reply that does not have the shape of an ImportWallets reply.
    public struct DecodingError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

extension ImportWalletsResult {
    init(json: JSONValue, path: String) throws(ImportWalletsResponse.DecodingError) {
        guard json.objectValue != nil else { throw .init("\(path): expected an object") }
        var wallet: Wallet?
        if let value = json["wallet"], value != .null { wallet = try Wallet(json: value, path: "\(path).wallet") }
        var error: ImportItemError?
        if let value = json["error"], value != .null {
            guard value.objectValue != nil, let code = value["code"]?.intValue, let name = value["name"]?.stringValue,
                let message = value["message"]?.stringValue, let code = Int(exactly: code)
            else { throw .init("\(path).error: expected {code, name, message}") }
            error = ImportItemError(code: code, name: name, message: message)
        }
        self.init(wallet: wallet, error: error)
    }
}

extension Wallet {
    func write(to writer: inout JSONByteWriter) {
        writer.beginObject()
        writer.member("id", id)
        writer.member("address", address)
        writer.member("networkFamily", networkFamily.rawValue)
        writer.member("keyOrigin", keyOrigin.rawValue)
        writer.member("type", type?.rawValue)
        writer.member("reference", reference)
        writer.endObject()
    }

    init(json: JSONValue, path: String) throws(ImportWalletsResponse.DecodingError) {
        func text(_ name: String) throws(ImportWalletsResponse.DecodingError) -> String {
            guard let value = json[name]?.stringValue else { throw .init("\(path).\(name): expected a string") }
            return value
        }
        func optionalText(_ name: String) throws(ImportWalletsResponse.DecodingError) -> String? {
            guard let value = json[name], value != .null else { return nil }
            guard let text = value.stringValue else { throw .init("\(path).\(name): expected a string") }
            return text
        }
        guard json.objectValue != nil else { throw .init("\(path): expected an object") }
        self.init(
            id: try text("id"), address: try text("address"),
            networkFamily: NetworkFamily(wire: try text("networkFamily")),
            keyOrigin: KeyOrigin(wire: try text("keyOrigin")),
            type: try optionalText("type").map(WalletType.init(wire:)),
            reference: try optionalText("reference"))
    }
}

extension ImportWalletsRequest {
    /// The request as compact JSON (the synthesized `Codable`'s members and order).
    public func jsonBytes() -> [UInt8] {
        var writer = JSONByteWriter(capacity: 256 + 160 * wallets.count)
        writer.beginObject()
        writer.key("keyMaterial")
        writer.beginObject()
        writer.member("keyId", keyMaterial.keyId)
        writer.member("suite", keyMaterial.suite)
        writer.member("encapsulatedKey", keyMaterial.encapsulatedKey)
        writer.endObject()
        writer.beginArray("wallets")
        for item in wallets {
            writer.beginObject()
            writer.member("networkFamily", item.networkFamily.rawValue)
            writer.member("reference", item.reference)
            writer.member("ciphertext", item.ciphertext)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// Reads a well-formed request, or nil for anything else (the caller then lets the synthesized
    /// decoder say what is wrong, with its usual messages).
    public init?(jsonBytes bytes: [UInt8]) {
        guard let root = try? JSONValue.parse(bytes), root.objectValue != nil,
            let material = root["keyMaterial"], material.objectValue != nil,
            let keyId = material["keyId"]?.stringValue, let suite = material["suite"]?.stringValue,
            let encapsulatedKey = material["encapsulatedKey"]?.stringValue, let list = root["wallets"]?.arrayValue
        else { return nil }
        var wallets: [ImportWalletsItem] = []
        wallets.reserveCapacity(list.count)
        for item in list {
            guard item.objectValue != nil, let family = item["networkFamily"]?.stringValue,
                let ciphertext = item["ciphertext"]?.stringValue
            else { return nil }
            var reference: String?
            if let value = item["reference"], value != .null {
                guard let text = value.stringValue else { return nil }
                reference = text
            }
            wallets.append(
                ImportWalletsItem(
                    networkFamily: NetworkFamily(wire: family), reference: reference, ciphertext: ciphertext))
        }
        self.init(
            keyMaterial: BatchKeyMaterial(keyId: keyId, suite: suite, encapsulatedKey: encapsulatedKey),
            wallets: wallets)
    }
}
