import WalletCrypto

// The CreateWallets reply is up to a thousand wallets: through Codable, encoding it in the core and
// decoding it in the client cost about a fifth of the CPU of a bulk creation (more than the SQLite
// writes). These write and read the same JSON directly.
extension CreateWalletsRequest {
    /// The request as JSON: the bytes `WaasClient.encodeBody` writes for it (members in declaration order,
    /// slashes unescaped), without going through Codable for its thousand strings.
    public func jsonBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48 + references.reduce(0) { $0 + $1.utf8.count + 3 })
        out.append(contentsOf: #"{"networkFamily":"#.utf8)
        CreateWalletsResponse.append(string: networkFamily.rawValue, to: &out)
        out.append(contentsOf: #","references":["#.utf8)
        for (index, reference) in references.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            CreateWalletsResponse.append(string: reference, to: &out)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}

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
                wallet = Wallet.read(&reader)
                return wallet != nil
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
