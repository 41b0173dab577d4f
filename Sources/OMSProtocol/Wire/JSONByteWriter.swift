import TextFormats

/// Compact JSON written straight into bytes, for the bulk messages whose encoding is on the hot path
/// (`ImportWalletsRequest.jsonBytes()`, `ImportWalletsResponse.jsonBytes()`, and the CreateWallets
/// request and reply).
///
/// Strings are written by `JSONString`, the project's one JSON string writer.
struct JSONByteWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a comma before it.
    private var needsComma = false

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func beginArray(_ key: String) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member's key; the value follows.
    mutating func key(_ key: String) {
        separate()
        JSONString.append(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// `"key":"value"`, or nothing when `value` is nil.
    mutating func member(_ key: String, _ value: String?) {
        guard let value else { return }
        self.key(key)
        JSONString.append(value, to: &bytes)
        needsComma = true
    }

    mutating func member(_ key: String, _ value: Bool) {
        self.key(key)
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        needsComma = true
    }

    /// A string element of an array.
    mutating func element(_ value: String) {
        separate()
        JSONString.append(value, to: &bytes)
        needsComma = true
    }

    mutating func member(_ key: String, _ value: Int) {
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}
