/// Base64url without padding, as JOSE uses it.
///
/// Encoding never pads; decoding accepts unpadded input only and refuses any character outside
/// the URL-safe alphabet, padding, impossible lengths and non-zero unused trailing bits, so each
/// byte string has exactly one accepted text form.
/// See [RFC 4648 §5](https://www.rfc-editor.org/rfc/rfc4648#section-5) and
/// [RFC 7515 §2](https://www.rfc-editor.org/rfc/rfc7515#section-2).
public enum Base64URL {
    /// Why a string is not canonical unpadded base64url.
    public struct DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What went wrong.
        public enum Code: String, Hashable, Sendable {
            /// A character outside `A-Z a-z 0-9 - _` (padding `=` included).
            case invalidCharacter
            /// A length of 4n+1 characters, which no byte string encodes to.
            case invalidLength
            /// The unused low bits of the last character are not zero.
            case nonCanonical
        }
        /// What went wrong.
        public let code: Code
        /// The character offset where it went wrong.
        public let offset: Int

        /// An error of `code` at character `offset`.
        public init(code: Code, offset: Int) {
            self.code = code
            self.offset = offset
        }

        public var description: String {
            switch code {
            case .invalidCharacter: "base64url: invalid character at offset \(offset)"
            case .invalidLength: "base64url: impossible length \(offset) (4n+1 characters)"
            case .nonCanonical: "base64url: non-zero unused bits in the last character at offset \(offset)"
            }
        }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks a byte outside the alphabet.
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    /// Encodes `bytes` as unpadded base64url.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let n = UInt32(input[index]) << 16
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
        case 2:
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded base64url.
    /// - Throws: `DecodingError` for padding, a character outside the alphabet, a 4n+1 length, or
    ///   non-zero unused bits.
    public static func decode<S: StringProtocol>(_ string: S) throws(DecodingError) -> [UInt8] {
        let chars = Array(string.utf8)
        if chars.count % 4 == 1 { throw DecodingError(code: .invalidLength, offset: chars.count) }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for (offset, char) in chars.enumerated() {
            let value = reverse[Int(char)]
            if value == 0xFF { throw DecodingError(code: .invalidCharacter, offset: offset) }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        if accumulator != 0 { throw DecodingError(code: .nonCanonical, offset: chars.count - 1) }
        return out
    }
}
