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
        self.init(
            results: try ReplyJSON.elements(
                "results", of: bytes, reserving: ImportWalletsRequest.expectedItems(inBytes: bytes.count),
                fast: ImportWalletsResult.read,
                general: ImportWalletsResult.init(json:path:), failure: DecodingError.init))
    }

    /// A reply that does not have the shape of an ImportWallets reply.
    public struct DecodingError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

extension ImportWalletsResult {
    fileprivate static func read(_ reader: inout JSONByteReader) -> ImportWalletsResult? {
        var wallet: Wallet?
        var error: ImportItemError?
        var seen = (wallet: false, error: false)
        let read = reader.object { reader, key in
            switch key {
            case "wallet" where !seen.wallet:
                seen.wallet = true
                if reader.consumeNull() { return true }
                guard let value = Wallet.read(&reader) else { return false }
                wallet = value
                return true
            case "error" where !seen.error:
                seen.error = true
                if reader.consumeNull() { return true }
                guard let value = ImportItemError.read(&reader) else { return false }
                error = value
                return true
            default: return false
            }
        }
        guard read else { return nil }
        return ImportWalletsResult(wallet: wallet, error: error)
    }

    fileprivate init(json: JSONValue, path: String) throws(ReplyJSON.ShapeError) {
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

extension ImportItemError {
    fileprivate static func read(_ reader: inout JSONByteReader) -> ImportItemError? {
        var code: Int?
        var name: String?
        var message: String?
        let read = reader.object { reader, key in
            switch key {
            case "code" where code == nil:
                code = reader.integer()
                return code != nil
            case "name" where name == nil: return reader.string(into: &name)
            case "message" where message == nil: return reader.string(into: &message)
            default: return false
            }
        }
        guard read, let code, let name, let message else { return nil }
        return ImportItemError(code: code, name: name, message: message)
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
        let capacity = Self.expectedItems(inBytes: bytes.count)
        if let fast = JSONByteReader.read(bytes, { Self.read(&$0, reserving: capacity) }) {
            self = fast
            return
        }
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

    /// The request through ``JSONByteReader``; nil for anything it does not take (then read by the
    /// general parser above).
    private static func read(_ reader: inout JSONByteReader, reserving capacity: Int) -> ImportWalletsRequest? {
        var material: BatchKeyMaterial?
        var wallets: [ImportWalletsItem]?
        let read = reader.object { reader, key in
            switch key {
            case "keyMaterial" where material == nil:
                material = readMaterial(&reader)
                return material != nil
            case "wallets" where wallets == nil:
                wallets = reader.array(reserving: capacity, readItem)
                return wallets != nil
            default: return false
            }
        }
        guard read, let material, let wallets else { return nil }
        return ImportWalletsRequest(keyMaterial: material, wallets: wallets)
    }

    private static func readMaterial(_ reader: inout JSONByteReader) -> BatchKeyMaterial? {
        var keyId: String?
        var suite: String?
        var encapsulatedKey: String?
        let read = reader.object { reader, key in
            switch key {
            case "keyId" where keyId == nil: return reader.string(into: &keyId)
            case "suite" where suite == nil: return reader.string(into: &suite)
            case "encapsulatedKey" where encapsulatedKey == nil: return reader.string(into: &encapsulatedKey)
            default: return false
            }
        }
        guard read, let keyId, let suite, let encapsulatedKey else { return nil }
        return BatchKeyMaterial(keyId: keyId, suite: suite, encapsulatedKey: encapsulatedKey)
    }

    private static func readItem(_ reader: inout JSONByteReader) -> ImportWalletsItem? {
        var family: String?
        var reference: String?
        var referenceSeen = false
        var ciphertext: String?
        let read = reader.object { reader, key in
            switch key {
            case "networkFamily" where family == nil: return reader.string(into: &family)
            case "reference" where !referenceSeen:
                referenceSeen = true
                return reader.optionalString(into: &reference)
            case "ciphertext" where ciphertext == nil: return reader.string(into: &ciphertext)
            default: return false
            }
        }
        guard read, let family, let ciphertext else { return nil }
        return ImportWalletsItem(
            networkFamily: NetworkFamily(wire: family), reference: reference, ciphertext: ciphertext)
    }
}
