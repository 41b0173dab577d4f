import WalletCrypto

// The one wallet reader and writer of the bulk replies (CreateWallets and ImportWallets both carry
// wallets): the members and order of the synthesized `Codable`, absent optionals left out.
extension Wallet {
    /// A wallet through the byte reader; nil for anything it does not take. Inlined into each reply's
    /// element reader, as it was when only one reply had it: a call per wallet cost more than it saves.
    @inline(__always)
    static func read(_ reader: inout JSONByteReader) -> Wallet? {
        // Plain locals, not a dictionary of fields: no hashing or storage per wallet.
        var id: String?
        var address: String?
        var family: String?
        var origin: String?
        var type: String?
        var reference: String?
        var seen = (type: false, reference: false)
        let read = reader.object { reader, key in
            switch key {
            case "id" where id == nil: return reader.string(into: &id)
            case "address" where address == nil: return reader.string(into: &address)
            case "networkFamily" where family == nil: return reader.string(into: &family)
            case "keyOrigin" where origin == nil: return reader.string(into: &origin)
            case "type" where !seen.type:
                seen.type = true
                return reader.optionalString(into: &type)
            case "reference" where !seen.reference:
                seen.reference = true
                return reader.optionalString(into: &reference)
            default: return false
            }
        }
        guard read, let id, let address, let family, let origin else { return nil }
        return Wallet(
            id: id, address: address, networkFamily: NetworkFamily(wire: family),
            keyOrigin: KeyOrigin(wire: origin), type: type.map(WalletType.init(wire:)), reference: reference)
    }

    /// A wallet from its parsed value, as the synthesized decoder reads it (unknown members skipped,
    /// `null` for an absent optional).
    ///
    /// - Throws: ``ReplyJSON/ShapeError`` naming the member at fault under `path`.
    init(json: JSONValue, path: String) throws(ReplyJSON.ShapeError) {
        func text(_ name: String) throws(ReplyJSON.ShapeError) -> String {
            guard let value = json[name]?.stringValue else { throw .init("\(path).\(name): expected a string") }
            return value
        }
        func optionalText(_ name: String) throws(ReplyJSON.ShapeError) -> String? {
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

    /// The wallet as a compact JSON object.
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
}
