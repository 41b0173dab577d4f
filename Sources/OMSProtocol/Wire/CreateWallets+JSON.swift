import WalletCrypto

// The CreateWallets reply is up to a thousand wallets: through Codable, encoding it in the core and
// decoding it in the client cost about a fifth of the CPU of a bulk creation (more than the SQLite
// writes). These write and read the same JSON directly, with the writer, reader and wallet codec the
// ImportWallets messages use.
extension CreateWalletsRequest {
    /// The request as JSON: the members `WaasClient.encodeBody` writes for it (in declaration order,
    /// slashes unescaped), without going through Codable for its thousand strings.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONByteWriter(capacity: 48 + references.reduce(0) { $0 + $1.utf8.count + 3 })
        writer.beginObject()
        writer.member("networkFamily", networkFamily.rawValue)
        writer.beginArray("references")
        for reference in references { writer.element(reference) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}

extension CreateWalletsResponse {
    /// The reply as JSON: the members and values `WaasClient.encodeBody` writes for it (absent fields
    /// left out, slashes unescaped), in declaration order.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONByteWriter(capacity: 64 + wallets.count * 240)
        writer.beginObject()
        writer.beginArray("wallets")
        for entry in wallets {
            writer.beginObject()
            writer.key("wallet")
            entry.wallet.write(to: &writer)
            writer.member("created", entry.created)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// Reads a reply: any member order, unknown members skipped, a null optional field as absent, as the
    /// Codable decoder would; the compact form the core writes goes through ``JSONByteReader``.
    ///
    /// - Throws: ``ReplyError`` when it is not JSON (saying where) or naming the member at fault
    ///   (`wallets[3].wallet.id: expected a string`).
    public init(jsonBytes bytes: [UInt8]) throws(ReplyError) {
        self.init(
            wallets: try ReplyJSON.elements(
                "wallets", of: bytes, reserving: CreateWalletsRequest.maxReferences, fast: CreatedWallet.read,
                general: CreatedWallet.init(json:path:), failure: ReplyError.init))
    }

    /// A reply that is not a CreateWallets reply.
    public struct ReplyError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

extension CreatedWallet {
    fileprivate static func read(_ reader: inout JSONByteReader) -> CreatedWallet? {
        var wallet: Wallet?
        var created: Bool?
        let read = reader.object { reader, key in
            switch key {
            case "wallet" where wallet == nil:
                guard let value = Wallet.read(&reader) else { return false }
                wallet = value
                return true
            case "created" where created == nil:
                created = reader.bool()
                return created != nil
            default: return false
            }
        }
        guard read, let wallet, let created else { return nil }
        return CreatedWallet(wallet: wallet, created: created)
    }

    fileprivate init(json: JSONValue, path: String) throws(ReplyJSON.ShapeError) {
        guard json.objectValue != nil else { throw .init("\(path): expected an object") }
        let wallet = try Wallet(json: json["wallet"] ?? .null, path: "\(path).wallet")
        guard let created = json["created"]?.boolValue else { throw .init("\(path).created: expected true or false") }
        self.init(wallet: wallet, created: created)
    }
}
