/// EIP-712 typed structured data: the digest a wallet signs for `eth_signTypedData_v4`.
///
/// The digest is keccak256(0x19 0x01 || hashStruct(EIP712Domain, domain) || hashStruct(primaryType,
/// message)); `hashStruct(T, v)` = keccak256(typeHash(T) || encodeData(T, v)), where the type string lists
/// the primary type first and every struct it references after it, sorted by name. Arrays (`T[]`,
/// `T[n]`), nested structs, `string`, `bytes`, `bytesN`, `bool`, `address`, `uintN` and `intN` are
/// encoded as the EIP says. See <https://eips.ethereum.org/EIPS/eip-712>.
public struct EIP712TypedData: Sendable, Hashable {
    /// One member of a struct type.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var type: String
    }

    /// Struct types by name (the domain's `EIP712Domain` included, derived when absent).
    public let types: [String: [Field]]
    public let primaryType: String
    public let domain: JSONObject
    public let message: JSONObject

    /// Why typed data cannot be hashed: a malformed document, an unknown type or a value out of range.
    public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        public let reason: String
        init(_ reason: String) { self.reason = reason }
        public var description: String { "EIP-712: \(reason)" }
    }

    /// The domain members EIP-712 defines, in the order the domain type lists them.
    static let domainFields: [(String, String)] = [
        ("name", "string"), ("version", "string"), ("chainId", "uint256"), ("verifyingContract", "address"),
        ("salt", "bytes32"),
    ]

    /// Reads `{types, primaryType, domain, message}` as `eth_signTypedData_v4` takes it. When `types`
    /// lacks `EIP712Domain`, it is derived from the members `domain` has, as common wallets do.
    public init(json: JSONValue) throws(Error) {
        guard let root = json.objectValue else { throw Error("typed data must be a JSON object") }
        guard let typesObject = root["types"]?.objectValue else { throw Error("types: missing or not an object") }
        guard let primaryType = root["primaryType"]?.stringValue else { throw Error("primaryType: missing") }
        guard let domain = root["domain"]?.objectValue else { throw Error("domain: missing or not an object") }
        guard let message = root["message"]?.objectValue else { throw Error("message: missing or not an object") }
        var types: [String: [Field]] = [:]
        for (name, value) in typesObject {
            guard let members = value.arrayValue else { throw Error("types.\(name): not an array") }
            types[name] = try members.map { member throws(Error) in
                guard let field = member["name"]?.stringValue, let type = member["type"]?.stringValue else {
                    throw Error("types.\(name): each member needs a name and a type")
                }
                return Field(name: field, type: type)
            }
        }
        if types["EIP712Domain"] == nil {
            types["EIP712Domain"] = Self.domainFields.filter { domain[$0.0] != nil }.map {
                Field(name: $0.0, type: $0.1)
            }
        }
        guard types[primaryType] != nil else { throw Error("primaryType \(primaryType) is not among the types") }
        self.types = types
        self.primaryType = primaryType
        self.domain = domain
        self.message = message
    }

    /// keccak256(0x19 0x01 || domainSeparator || hashStruct(primaryType, message)): the digest signed.
    public func signingHash() throws(Error) -> [UInt8] {
        var hasher = Keccak256.Hasher()
        hasher.update([0x19, 0x01])
        hasher.update(try domainSeparator())
        if primaryType != "EIP712Domain" { hasher.update(try hashStruct(primaryType, message)) }
        return hasher.finalize()
    }

    /// hashStruct(EIP712Domain, domain).
    public func domainSeparator() throws(Error) -> [UInt8] { try hashStruct("EIP712Domain", domain) }

    /// The type string of `type`: itself, then every struct it references, sorted by name.
    public func encodeType(_ type: String) throws(Error) -> String {
        var found: Set<String> = []
        try collect(type, into: &found)
        found.remove(type)
        return try ([type] + found.sorted()).map { name throws(Error) in
            guard let fields = types[name] else { throw Error("unknown type \(name)") }
            return name + "(" + fields.map { "\($0.type) \($0.name)" }.joined(separator: ",") + ")"
        }.joined()
    }

    /// keccak256(typeHash || encodeData(type, value)).
    public func hashStruct(_ type: String, _ value: JSONObject) throws(Error) -> [UInt8] {
        guard let fields = types[type] else { throw Error("unknown type \(type)") }
        var hasher = Keccak256.Hasher()
        hasher.update(Keccak256.hash(Array(try encodeType(type).utf8)))
        for field in fields {
            guard let member = value[field.name] else { throw Error("\(type).\(field.name): missing") }
            hasher.update(try encodeValue(field.type, member, at: "\(type).\(field.name)"))
        }
        return hasher.finalize()
    }

    private func collect(_ type: String, into found: inout Set<String>) throws(Error) {
        let base = Self.baseType(type)
        guard let fields = types[base], !found.contains(base) else { return }
        found.insert(base)
        for field in fields { try collect(field.type, into: &found) }
    }

    /// `Mail[2][]` -> `Mail`.
    static func baseType(_ type: String) -> String {
        guard let bracket = type.firstIndex(of: "[") else { return type }
        return String(type[..<bracket])
    }

    /// One member encoded to its 32-byte word.
    private func encodeValue(_ type: String, _ value: JSONValue, at path: String) throws(Error) -> [UInt8] {
        if type.hasSuffix("]"), let open = type.lastIndex(of: "[") {
            let element = String(type[..<open])
            let lengthText = type[type.index(after: open)..<type.index(before: type.endIndex)]
            guard let items = value.arrayValue else { throw Error("\(path): expected an array") }
            if !lengthText.isEmpty {
                guard let length = Int(lengthText), length == items.count else {
                    throw Error("\(path): expected \(lengthText) elements, got \(items.count)")
                }
            }
            var hasher = Keccak256.Hasher()
            for (index, item) in items.enumerated() {
                hasher.update(try encodeValue(element, item, at: "\(path)[\(index)]"))
            }
            return hasher.finalize()
        }
        if types[type] != nil {
            guard let object = value.objectValue else { throw Error("\(path): expected an object of type \(type)") }
            return try hashStruct(type, object)
        }
        switch type {
        case "string":
            guard let text = value.stringValue else { throw Error("\(path): expected a string") }
            return Keccak256.hash(Array(text.utf8))
        case "bytes":
            guard let bytes = ABIWord.hexBytes(value) else { throw Error("\(path): expected 0x-prefixed hex bytes") }
            return Keccak256.hash(bytes)
        default:
            let word: [UInt8]?
            do { word = try ABIWord.encode(type, value) } catch { throw Error("\(path): \(error.reason)") }
            guard let word else { throw Error("\(path): unknown type \(type)") }
            return word
        }
    }
}

/// One static ABI value as its 32-byte word (Solidity ABI spec, "Formal Specification of the
/// Encoding"): `bool`, `address`, `bytesN` (right-padded), `uintN` and `intN` (two's complement),
/// the words EIP-712 and contract calls share. See <https://docs.soliditylang.org/en/latest/abi-spec.html>.
public enum ABIWord {
    /// Why a value does not fit its type.
    public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        public let reason: String
        init(_ reason: String) { self.reason = reason }
        public var description: String { "ABI: \(reason)" }
    }

    /// The word of `value` as `type`; nil when `type` is not a static elementary type.
    ///
    /// Integers come as JSON integers, decimal strings (negative for intN) or 0x hex strings; bytes as
    /// 0x hex; addresses as 0x + 40 hex digits in any case. A value out of range is refused, never cut.
    public static func encode(_ type: String, _ value: JSONValue) throws(Error) -> [UInt8]? {
        switch type {
        case "bool":
            guard let flag = value.boolValue else { throw Error("expected true or false") }
            return word(flag ? [1] : [])
        case "address":
            guard let text = value.stringValue, let address = try? EthereumAddress(text, strict: false) else {
                throw Error("expected an address (0x + 40 hex digits)")
            }
            return word(address.bytes)
        default:
            break
        }
        if type.hasPrefix("bytes"), let size = Int(type.dropFirst(5)), (1...32).contains(size) {
            guard let bytes = hexBytes(value) else { throw Error("expected 0x-prefixed hex bytes") }
            guard bytes.count == size else { throw Error("expected \(size) bytes, got \(bytes.count)") }
            return bytes + [UInt8](repeating: 0, count: 32 - size)
        }
        if type.hasPrefix("uint"), let bits = bits(type.dropFirst(4)) {
            return try integerWord(value, bits: bits, signed: false)
        }
        if type.hasPrefix("int"), let bits = bits(type.dropFirst(3)) {
            return try integerWord(value, bits: bits, signed: true)
        }
        return nil
    }

    /// `uint` alone means 256 bits; otherwise 8...256 in steps of 8.
    static func bits(_ suffix: Substring) -> Int? {
        if suffix.isEmpty { return 256 }
        guard let bits = Int(suffix), bits % 8 == 0, (8...256).contains(bits) else { return nil }
        return bits
    }

    /// `bytes` left-padded to 32.
    static func word(_ bytes: [UInt8]) -> [UInt8] { [UInt8](repeating: 0, count: 32 - bytes.count) + bytes }

    /// 0x-prefixed hex bytes, or nil.
    public static func hexBytes(_ value: JSONValue) -> [UInt8]? {
        guard let text = value.stringValue, text.hasPrefix("0x") || text.hasPrefix("0X") else { return nil }
        return try? Base16.decode(text.dropFirst(2))
    }

    /// An integer member as its 32-byte two's-complement word: a JSON integer, a decimal string
    /// (optionally negative for intN) or a 0x hex string, checked against the type's range.
    static func integerWord(_ value: JSONValue, bits: Int, signed: Bool) throws(Error) -> [UInt8] {
        var negative = false
        let magnitude: TokenAmount
        if let int = value.intValue, value.stringValue == nil {
            negative = int < 0
            magnitude = TokenAmount(int.magnitude)
        } else if var text = value.stringValue {
            if text.hasPrefix("-") {
                negative = true
                text.removeFirst()
            }
            if text.hasPrefix("0x") || text.hasPrefix("0X") {
                guard let bytes = try? Base16.decode(text.dropFirst(2)), bytes.count <= 32,
                    let amount = TokenAmount(bigEndianBytes: bytes)
                else { throw Error("not a hex integer of at most 32 bytes") }
                magnitude = amount
            } else {
                guard let amount = try? TokenAmount(parsing: text) else { throw Error("not an integer") }
                magnitude = amount
            }
        } else {
            throw Error("expected an integer")
        }
        guard signed || !negative else { throw Error("uint\(bits) cannot be negative") }
        // Range: unsigned below 2^bits; signed in -2^(bits-1) ... 2^(bits-1) - 1.
        let limitBits = signed ? bits - 1 : bits
        if limitBits < 256 {
            let limit = Self.powerOfTwo(limitBits)
            let fits = negative ? !(limit < magnitude) : magnitude < limit
            guard fits else { throw Error("out of range for \(signed ? "int" : "uint")\(bits)") }
        }
        guard negative, !magnitude.isZero else { return magnitude.bigEndianBytes }
        // Two's complement: 2^256 - magnitude = (2^256 - 1) - (magnitude - 1).
        return TokenAmount.max.subtracting(magnitude.subtracting(TokenAmount(1))!)!.bigEndianBytes
    }

    /// 2^exponent for exponent below 256.
    static func powerOfTwo(_ exponent: Int) -> TokenAmount {
        var bytes = [UInt8](repeating: 0, count: 32)
        bytes[31 - exponent / 8] = 1 << UInt8(exponent % 8)
        return TokenAmount(bigEndianBytes: bytes)!
    }
}
