import TextFormats

/// Hexadecimal (RFC 4648 base16) encoding: lowercase out, strict in.
///
/// Named `Base16` rather than `Hex` so that test targets importing both `WalletCrypto` and
/// `TestSupport` (which has its own `Hex`) need no module qualification.
/// See <https://www.rfc-editor.org/rfc/rfc4648#section-8>.
public enum Base16 {
    /// Why a string is not hexadecimal.
    public struct DecodingError: CodedError, Sendable {
        /// The kind of problem.
        public enum Code: Sendable, Equatable {
            /// The digit count (after any `0x`) is odd.
            case oddLength
            /// A character is not `0-9`, `a-f` or `A-F`.
            case invalidCharacter
            /// `requirePrefix` was set and the string has no `0x`.
            case missingPrefix
        }
        /// The kind of problem.
        public let code: Code
        /// The UTF-8 offset of the offending character in the input, when there is one.
        public let offset: Int?

        /// What is wrong and where, for the operator.
        public var message: String {
            switch code {
            case .oddLength: "hex decoding: odd number of hex digits"
            case .invalidCharacter: "hex decoding: invalid character at offset \(offset ?? 0)"
            case .missingPrefix: "hex decoding: missing 0x prefix"
            }
        }
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Lowercase hex of `bytes`, without a prefix.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        return String(unsafeUninitializedCapacity: input.count * 2) { out in
            digits.withUnsafeBufferPointer { table in
                for (i, byte) in input.enumerated() {
                    out[2 * i] = table[Int(byte >> 4)]
                    out[2 * i + 1] = table[Int(byte & 0x0f)]
                }
            }
            return input.count * 2
        }
    }

    /// `0x` followed by the lowercase hex of `bytes`.
    public static func encodePrefixed<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        "0x" + encode(bytes)
    }

    /// Decodes hex digits (either case), with an optional `0x`/`0X` prefix (required if `requirePrefix`).
    ///
    /// Strict: no whitespace, no odd length, no other characters.
    /// - Throws: `Base16.DecodingError`.
    public static func decode(_ string: some StringProtocol, requirePrefix: Bool = false) throws(DecodingError)
        -> [UInt8]
    {
        var utf8 = Array(string.utf8)
        var start = 0
        if utf8.count >= 2 && utf8[0] == UInt8(ascii: "0") && (utf8[1] | 0x20) == UInt8(ascii: "x") {
            start = 2
        } else if requirePrefix {
            throw DecodingError(code: .missingPrefix, offset: 0)
        }
        let digitCount = utf8.count - start
        guard digitCount % 2 == 0 else { throw DecodingError(code: .oddLength, offset: nil) }
        var out = [UInt8](repeating: 0, count: digitCount / 2)
        for i in 0..<(digitCount / 2) {
            let hiOffset = start + 2 * i
            guard let hi = ASCII.hexValue(utf8[hiOffset]) else {
                throw DecodingError(code: .invalidCharacter, offset: hiOffset)
            }
            guard let lo = ASCII.hexValue(utf8[hiOffset + 1]) else {
                throw DecodingError(code: .invalidCharacter, offset: hiOffset + 1)
            }
            out[i] = hi << 4 | lo
        }
        utf8.removeAll()
        return out
    }
}
