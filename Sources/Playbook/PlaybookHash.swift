/// The SHA-256 of a playbook file's bytes; the engine refuses to resume a run whose playbook changed.
public struct PlaybookHash: Sendable, Hashable, CustomStringConvertible {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    /// Hashes file bytes.
    public init(of data: some Sequence<UInt8>) {
        bytes = SHA256.hash(Array(data))
    }

    /// Wraps a digest read back from storage; `nil` unless it is 64 hex digits.
    public init?(hex: String) {
        guard hex.utf8.count == 64 else { return nil }
        var out: [UInt8] = []
        var chars = hex.makeIterator()
        while let a = chars.next(), let b = chars.next() {
            guard let byte = UInt8(String([a, b]), radix: 16) else { return nil }
            out.append(byte)
        }
        bytes = out
    }

    /// Lowercase hex.
    public var hex: String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }

    /// `sha256:<hex>`.
    public var description: String { "sha256:" + hex }
}
