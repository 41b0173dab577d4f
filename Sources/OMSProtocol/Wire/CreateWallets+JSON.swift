import WalletCrypto

// The CreateWallets reply is up to a thousand wallets: through Codable, encoding it in the core and
// decoding it in the client cost about a fifth of the CPU of a bulk creation (more than the SQLite
// writes). These write and read the same JSON directly.
extension CreateWalletsResponse {
    /// The reply as JSON: the members and values `WaasClient.encodeBody` writes for it (absent fields
    /// left out, slashes unescaped), in declaration order.
    public func jsonBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + wallets.count * 240)
        out.append(contentsOf: #"{"wallets":["#.utf8)
        for (index, entry) in wallets.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            let wallet = entry.wallet
            out.append(contentsOf: #"{"wallet":{"id":"#.utf8)
            Self.append(string: wallet.id, to: &out)
            out.append(contentsOf: #","address":"#.utf8)
            Self.append(string: wallet.address, to: &out)
            out.append(contentsOf: #","networkFamily":"#.utf8)
            Self.append(string: wallet.networkFamily.rawValue, to: &out)
            out.append(contentsOf: #","keyOrigin":"#.utf8)
            Self.append(string: wallet.keyOrigin.rawValue, to: &out)
            if let type = wallet.type {
                out.append(contentsOf: #","type":"#.utf8)
                Self.append(string: type.rawValue, to: &out)
            }
            if let reference = wallet.reference {
                out.append(contentsOf: #","reference":"#.utf8)
                Self.append(string: reference, to: &out)
            }
            out.append(contentsOf: entry.created ? #"},"created":true}"#.utf8 : #"},"created":false}"#.utf8)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    /// A JSON string literal (RFC 8259 section 7): quotes, backslashes and control characters escaped.
    static func append(string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0a: out.append(contentsOf: #"\n"#.utf8)
            case 0x0d: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0c: out.append(contentsOf: #"\f"#.utf8)
            case 0..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0f)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Reads a reply: any member order, unknown members ignored, as the Codable decoder would.
    ///
    /// - Throws: ``ReplyError`` when it is not JSON or misses a required field.
    public init(jsonBytes bytes: [UInt8]) throws(ReplyError) {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            throw ReplyError("not JSON: \(error)")
        }
        guard let list = root["wallets"]?.arrayValue else { throw ReplyError("no wallets array") }
        var wallets: [CreatedWallet] = []
        wallets.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            guard let wallet = item["wallet"], let created = item["created"]?.boolValue,
                let id = wallet["id"]?.stringValue, let address = wallet["address"]?.stringValue,
                let family = wallet["networkFamily"]?.stringValue, let origin = wallet["keyOrigin"]?.stringValue
            else { throw ReplyError("wallets[\(index)] lacks wallet.id, address, networkFamily, keyOrigin or created") }
            let type = try Self.optionalString(wallet, "type", index)
            let reference = try Self.optionalString(wallet, "reference", index)
            wallets.append(
                CreatedWallet(
                    wallet: Wallet(
                        id: id, address: address, networkFamily: NetworkFamily(wire: family),
                        keyOrigin: KeyOrigin(wire: origin), type: type.map(WalletType.init(wire:)), reference: reference
                    ),
                    created: created))
        }
        self.init(wallets: wallets)
    }

    private static func optionalString(_ object: JSONValue, _ key: String, _ index: Int) throws(ReplyError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw ReplyError("wallets[\(index)].wallet.\(key) is not a string")
        }
    }

    /// A reply that is not a CreateWallets reply.
    public struct ReplyError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
