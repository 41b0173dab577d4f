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
        if let fast = bytes.withUnsafeBufferPointer({ buffer in
            var reader = JSONByteReader(buffer)
            return Self.read(&reader)
        }) {
            self = fast
            return
        }
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

    /// The reply through ``JSONByteReader``; nil for anything it does not take (the general parser then
    /// reads it and names what is wrong).
    private static func read(_ reader: inout JSONByteReader) -> ImportWalletsResponse? {
        guard reader.consume(UInt8(ascii: "{")), reader.nextKey(first: true) == "results",
            reader.consume(UInt8(ascii: "["))
        else { return nil }
        var results: [ImportWalletsResult] = []
        results.reserveCapacity(ImportWalletsRequest.maxWallets)
        if !reader.consume(UInt8(ascii: "]")) {
            repeat {
                guard let result = ImportWalletsResult.read(&reader) else { return nil }
                results.append(result)
            } while reader.consume(UInt8(ascii: ","))
            guard reader.consume(UInt8(ascii: "]")) else { return nil }
        }
        guard reader.consume(UInt8(ascii: "}")), reader.atEnd() else { return nil }
        return ImportWalletsResponse(results: results)
    }

    /// A reply that does not have the shape of an ImportWallets reply.
    public struct DecodingError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

extension ImportWalletsResult {
    fileprivate static func read(_ reader: inout JSONByteReader) -> ImportWalletsResult? {
        guard reader.consume(UInt8(ascii: "{")) else { return nil }
        var wallet: Wallet?
        var error: ImportItemError?
        var seen = (wallet: false, error: false)
        var first = true
        while let key = reader.nextKey(first: first) {
            first = false
            switch key {
            case "wallet" where !seen.wallet:
                seen.wallet = true
                if !reader.consumeNull() {
                    guard let value = Wallet.read(&reader) else { return nil }
                    wallet = value
                }
            case "error" where !seen.error:
                seen.error = true
                if !reader.consumeNull() {
                    guard let value = ImportItemError.read(&reader) else { return nil }
                    error = value
                }
            default: return nil
            }
        }
        guard reader.consume(UInt8(ascii: "}")) else { return nil }
        return ImportWalletsResult(wallet: wallet, error: error)
    }

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

extension ImportItemError {
    fileprivate static func read(_ reader: inout JSONByteReader) -> ImportItemError? {
        guard reader.consume(UInt8(ascii: "{")) else { return nil }
        var code: Int?
        var name: String?
        var message: String?
        var first = true
        while let key = reader.nextKey(first: first) {
            first = false
            switch key {
            case "code" where code == nil: code = reader.integer()
            case "name" where name == nil: name = reader.string()
            case "message" where message == nil: message = reader.string()
            default: return nil
            }
        }
        guard reader.consume(UInt8(ascii: "}")), let code, let name, let message else { return nil }
        return ImportItemError(code: code, name: name, message: message)
    }
}

extension Wallet {
    fileprivate static func read(_ reader: inout JSONByteReader) -> Wallet? {
        guard reader.consume(UInt8(ascii: "{")) else { return nil }
        var id: String?
        var address: String?
        var family: String?
        var origin: String?
        var type: String?
        var reference: String?
        var seen = (type: false, reference: false)
        var first = true
        while let key = reader.nextKey(first: first) {
            first = false
            switch key {
            case "id" where id == nil: guard let value = reader.string() else { return nil }; id = value
            case "address" where address == nil:
                guard let value = reader.string() else { return nil }
                address = value
            case "networkFamily" where family == nil:
                guard let value = reader.string() else { return nil }
                family = value
            case "keyOrigin" where origin == nil:
                guard let value = reader.string() else { return nil }
                origin = value
            case "type" where !seen.type:
                seen.type = true
                if !reader.consumeNull() {
                    guard let value = reader.string() else { return nil }
                    type = value
                }
            case "reference" where !seen.reference:
                seen.reference = true
                if !reader.consumeNull() {
                    guard let value = reader.string() else { return nil }
                    reference = value
                }
            default: return nil
            }
        }
        guard reader.consume(UInt8(ascii: "}")), let id, let address, let family, let origin else { return nil }
        return Wallet(
            id: id, address: address, networkFamily: NetworkFamily(wire: family),
            keyOrigin: KeyOrigin(wire: origin), type: type.map(WalletType.init(wire:)), reference: reference)
    }

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
        if let fast = bytes.withUnsafeBufferPointer({ buffer in
            var reader = JSONByteReader(buffer)
            return Self.read(&reader)
        }) {
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
    private static func read(_ reader: inout JSONByteReader) -> ImportWalletsRequest? {
        guard reader.consume(UInt8(ascii: "{")) else { return nil }
        var material: BatchKeyMaterial?
        var wallets: [ImportWalletsItem]?
        var first = true
        while let key = reader.nextKey(first: first) {
            first = false
            switch key {
            case "keyMaterial" where material == nil:
                guard let value = readMaterial(&reader) else { return nil }
                material = value
            case "wallets" where wallets == nil:
                guard let value = readItems(&reader) else { return nil }
                wallets = value
            default: return nil
            }
        }
        guard reader.consume(UInt8(ascii: "}")), reader.atEnd(), let material, let wallets else { return nil }
        return ImportWalletsRequest(keyMaterial: material, wallets: wallets)
    }

    private static func readMaterial(_ reader: inout JSONByteReader) -> BatchKeyMaterial? {
        guard reader.consume(UInt8(ascii: "{")) else { return nil }
        var keyId: String?
        var suite: String?
        var encapsulatedKey: String?
        var first = true
        while let key = reader.nextKey(first: first) {
            first = false
            guard let value = reader.string() else { return nil }
            switch key {
            case "keyId" where keyId == nil: keyId = value
            case "suite" where suite == nil: suite = value
            case "encapsulatedKey" where encapsulatedKey == nil: encapsulatedKey = value
            default: return nil
            }
        }
        guard reader.consume(UInt8(ascii: "}")), let keyId, let suite, let encapsulatedKey else { return nil }
        return BatchKeyMaterial(keyId: keyId, suite: suite, encapsulatedKey: encapsulatedKey)
    }

    private static func readItems(_ reader: inout JSONByteReader) -> [ImportWalletsItem]? {
        guard reader.consume(UInt8(ascii: "[")) else { return nil }
        var items: [ImportWalletsItem] = []
        items.reserveCapacity(maxWallets)
        if reader.consume(UInt8(ascii: "]")) { return items }
        repeat {
            guard reader.consume(UInt8(ascii: "{")) else { return nil }
            var family: String?
            var reference: String?
            var referenceSeen = false
            var ciphertext: String?
            var first = true
            while let key = reader.nextKey(first: first) {
                first = false
                switch key {
                case "networkFamily" where family == nil:
                    guard let value = reader.string() else { return nil }
                    family = value
                case "reference" where !referenceSeen:
                    referenceSeen = true
                    if !reader.consumeNull() {
                        guard let value = reader.string() else { return nil }
                        reference = value
                    }
                case "ciphertext" where ciphertext == nil:
                    guard let value = reader.string() else { return nil }
                    ciphertext = value
                default: return nil
                }
            }
            guard reader.consume(UInt8(ascii: "}")), let family, let ciphertext else { return nil }
            items.append(
                ImportWalletsItem(
                    networkFamily: NetworkFamily(wire: family), reference: reference, ciphertext: ciphertext))
        } while reader.consume(UInt8(ascii: ","))
        guard reader.consume(UInt8(ascii: "]")) else { return nil }
        return items
    }
}
