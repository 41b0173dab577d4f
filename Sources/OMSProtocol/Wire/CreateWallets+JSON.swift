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
    /// Codable decoder would; strings without escapes are taken straight from the bytes.
    ///
    /// - Throws: ``ReplyError`` when it is not JSON or misses a required field.
    public init(jsonBytes bytes: [UInt8]) throws(ReplyError) {
        var scanner = ReplyScanner(bytes: bytes)
        var wallets: [CreatedWallet]?
        try scanner.object { (scanner, key) throws(ReplyError) in
            guard key == "wallets" else { return try scanner.skipValue() }
            var list: [CreatedWallet] = []
            try scanner.array { (scanner) throws(ReplyError) in list.append(try Self.entry(&scanner, index: list.count))
            }
            wallets = list
        }
        try scanner.end()
        guard let wallets else { throw ReplyError("no wallets array") }
        self.init(wallets: wallets)
    }

    private static func entry(_ scanner: inout ReplyScanner, index: Int) throws(ReplyError) -> CreatedWallet {
        // Plain locals, not a dictionary of fields: no hashing or storage per entry.
        var created: Bool?
        var id: String?
        var address: String?
        var family: String?
        var origin: String?
        var type: String?
        var reference: String?
        try scanner.object { (scanner, key) throws(ReplyError) in
            switch key {
            case "created": created = try scanner.bool()
            case "wallet":
                try scanner.object { (scanner, key) throws(ReplyError) in
                    switch key {
                    case "id": id = try scanner.optionalString() ?? id
                    case "address": address = try scanner.optionalString() ?? address
                    case "networkFamily": family = try scanner.optionalString() ?? family
                    case "keyOrigin": origin = try scanner.optionalString() ?? origin
                    case "type": type = try scanner.optionalString() ?? type
                    case "reference": reference = try scanner.optionalString() ?? reference
                    default: try scanner.skipValue()
                    }
                }
            default: try scanner.skipValue()
            }
        }
        guard let created, let id, let address, let family, let origin else {
            throw ReplyError("wallets[\(index)] lacks wallet.id, address, networkFamily, keyOrigin or created")
        }
        return CreatedWallet(
            wallet: Wallet(
                id: id, address: address, networkFamily: NetworkFamily(wire: family),
                keyOrigin: KeyOrigin(wire: origin),
                type: type.map(WalletType.init(wire:)), reference: reference),
            created: created)
    }

    /// A reply that is not a CreateWallets reply.
    public struct ReplyError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

/// A forward-only JSON reader (RFC 8259) over a reply's bytes, for ``CreateWalletsResponse/init(jsonBytes:)``.
struct ReplyScanner {
    let bytes: [UInt8]
    var position = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ what: String) -> CreateWalletsResponse.ReplyError {
        CreateWalletsResponse.ReplyError("not JSON: \(what) at byte \(position)")
    }

    private mutating func whitespace() {
        while position < bytes.count {
            let byte = bytes[position]
            guard byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09 else { return }
            position += 1
        }
    }

    private mutating func peek() throws(CreateWalletsResponse.ReplyError) -> UInt8 {
        whitespace()
        guard position < bytes.count else { throw error("unexpected end") }
        return bytes[position]
    }

    private mutating func expect(_ byte: UInt8) throws(CreateWalletsResponse.ReplyError) {
        guard try peek() == byte else { throw error("expected '\(Character(UnicodeScalar(byte)))'") }
        position += 1
    }

    mutating func end() throws(CreateWalletsResponse.ReplyError) {
        whitespace()
        guard position == bytes.count else { throw error("trailing bytes") }
    }

    /// An object, calling `member` with each key (it must consume the value).
    mutating func object(
        _ member: (inout ReplyScanner, String) throws(CreateWalletsResponse.ReplyError) -> Void
    ) throws(CreateWalletsResponse.ReplyError) {
        try expect(UInt8(ascii: "{"))
        depth += 1
        guard depth <= 64 else { throw error("nested too deep") }
        if try peek() == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                let key = try string()
                try expect(UInt8(ascii: ":"))
                try member(&self, key)
                if try peek() == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                try expect(UInt8(ascii: "}"))
                break
            }
        }
        depth -= 1
    }

    /// An array, calling `element` for each element (it must consume it).
    mutating func array(_ element: (inout ReplyScanner) throws(CreateWalletsResponse.ReplyError) -> Void)
        throws(CreateWalletsResponse.ReplyError)
    {
        try expect(UInt8(ascii: "["))
        depth += 1
        guard depth <= 64 else { throw error("nested too deep") }
        if try peek() == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                try element(&self)
                if try peek() == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                try expect(UInt8(ascii: "]"))
                break
            }
        }
        depth -= 1
    }

    mutating func bool() throws(CreateWalletsResponse.ReplyError) -> Bool {
        if try literal("true") { return true }
        if try literal("false") { return false }
        throw error("expected true or false")
    }

    /// A string, or nil for `null`.
    mutating func optionalString() throws(CreateWalletsResponse.ReplyError) -> String? {
        if try literal("null") { return nil }
        return try string()
    }

    private mutating func literal(_ text: StaticString) throws(CreateWalletsResponse.ReplyError) -> Bool {
        _ = try peek()
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] { return false }
        position += count
        return true
    }

    mutating func string() throws(CreateWalletsResponse.ReplyError) -> String {
        try expect(UInt8(ascii: "\""))
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                defer { position += 1 }
                return String(decoding: bytes[start..<position], as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw error("control character in a string") }
            position += 1
        }
        throw error("unterminated string")
    }

    /// The rest of a string that holds escapes, from its first byte `start`.
    private mutating func escapedString(from start: Int) throws(CreateWalletsResponse.ReplyError) -> String {
        var out = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0c)
                case UInt8(ascii: "n"): out.append(0x0a)
                case UInt8(ascii: "r"): out.append(0x0d)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xd800..<0xdc00).contains(scalar), try literal("\\u") {
                        let low = try hex4()
                        guard (0xdc00..<0xe000).contains(low) else { throw error("bad surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
                    }
                    out.append(contentsOf: Array(String(Character(UnicodeScalar(scalar) ?? "\u{FFFD}")).utf8))
                default: throw error("bad escape")
                }
            default:
                guard byte >= 0x20 else { throw error("control character in a string") }
                out.append(byte)
            }
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws(CreateWalletsResponse.ReplyError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            position += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("bad \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Any value, discarded.
    mutating func skipValue() throws(CreateWalletsResponse.ReplyError) {
        switch try peek() {
        case UInt8(ascii: "{"):
            try object { (scanner, _) throws(CreateWalletsResponse.ReplyError) in try scanner.skipValue() }
        case UInt8(ascii: "["):
            try array { (scanner) throws(CreateWalletsResponse.ReplyError) in try scanner.skipValue() }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"):
            guard try literal("null") else { throw error("bad literal") }
        default:
            let start = position
            while position < bytes.count, Array("+-.0123456789eE".utf8).contains(bytes[position]) { position += 1 }
            guard position > start else { throw error("unexpected character") }
        }
    }
}
