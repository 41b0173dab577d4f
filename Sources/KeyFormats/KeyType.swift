/// The kind of key an import carries: the wallet type it becomes (OMS `WalletType`).
public enum KeyType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A secp256k1 scalar; the wallet address is the Ethereum address of its public key.
    case ethereum
    /// An Ed25519 seed (or seed || public key); the wallet address is base58 of the public key.
    case solana

    /// Reads a `type` cell: `ethereum` (also `evm`) or `solana`, any case, ASCII whitespace trimmed.
    public init?(cell: some StringProtocol) {
        switch cell.trimmingASCIIWhitespace().lowercased() {
        case "ethereum", "evm": self = .ethereum
        case "solana": self = .solana
        default: return nil
        }
    }

    public var description: String { rawValue }
}

extension StringProtocol {
    /// Without leading and trailing ASCII spaces, tabs, CR and LF.
    func trimmingASCIIWhitespace() -> String {
        let bytes = Array(utf8)
        var start = 0
        var end = bytes.count
        while start < end, ASCII.isWhitespace(bytes[start]) { start += 1 }
        while end > start, ASCII.isWhitespace(bytes[end - 1]) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}

/// Byte classes shared by the parsers.
enum ASCII {
    /// Space, tab, LF, VT, FF, CR.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        // Unsigned wrap-around: one comparison for 0x09...0x0D (a range pattern was not always inlined).
        byte == 0x20 || byte &- 0x09 <= 0x04
    }

    /// Printable ASCII, space to tilde.
    @inline(__always)
    static func isPrintable(_ byte: UInt8) -> Bool { byte &- 0x20 <= 0x5E }

    /// The value of an ASCII hex digit, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte &- 0x30
        case 0x41...0x46: byte &- 0x41 &+ 10
        case 0x61...0x66: byte &- 0x61 &+ 10
        default: nil
        }
    }
}
