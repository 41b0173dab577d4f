/// Base58 with the Bitcoin alphabet (no checksum): Solana addresses and keys.
///
/// Leading zero bytes become leading `1`s and back. See
/// <https://datatracker.ietf.org/doc/html/draft-msporny-base58-03>.
public enum Base58 {
    /// Why a string is not base58.
    public struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The UTF-8 offset of the first character outside the Bitcoin alphabet.
        public let offset: Int

        public var description: String { "base58 decoding: invalid character at offset \(offset)" }
    }

    static let alphabet: [UInt8] = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)

    /// Maps an ASCII byte to its digit value, or 0xff.
    static let digitValues: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (value, char) in alphabet.enumerated() { table[Int(char)] = UInt8(value) }
        return table
    }()

    /// 58^5 fits in 32 bits; limbs in this base times 2^32 fit in 64 bits.
    static let limbBase: UInt64 = 656_356_768

    /// The base58 text of `bytes`.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        let zeros = input.prefix { $0 == 0 }.count
        // The number as little-endian limbs of five base58 digits each.
        var limbs: [UInt64] = []
        limbs.reserveCapacity(input.count / 3 + 1)
        var index = zeros
        while index < input.count {
            // Up to four bytes at a time: limbs = limbs * 256^n + chunk.
            let n = min(4, input.count - index)
            var chunk: UInt64 = 0
            for i in 0..<n { chunk = chunk << 8 | UInt64(input[index + i]) }
            index += n
            let shift = UInt64(8 * n)
            var carry = chunk
            for j in 0..<limbs.count {
                let value = limbs[j] << shift + carry
                limbs[j] = value % limbBase
                carry = value / limbBase
            }
            while carry > 0 {
                limbs.append(carry % limbBase)
                carry /= limbBase
            }
        }
        var digits: [UInt8] = []
        digits.reserveCapacity(zeros + limbs.count * 5)
        for limb in limbs {
            var value = limb
            for _ in 0..<5 {
                digits.append(UInt8(value % 58))
                value /= 58
            }
        }
        while digits.last == 0 { digits.removeLast() }
        var out = [UInt8](repeating: alphabet[0], count: zeros)
        out.reserveCapacity(zeros + digits.count)
        for digit in digits.reversed() { out.append(alphabet[Int(digit)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of base58 `string`; every character must be in the Bitcoin alphabet (no whitespace).
    ///
    /// - Throws: `Base58.DecodingError` at the first invalid character.
    public static func decode(_ string: some StringProtocol) throws(DecodingError) -> [UInt8] {
        let input = Array(string.utf8)
        return try input.withUnsafeBytes { bytes in Result { () throws(DecodingError) in try decode(text: bytes) } }
            .get()
    }

    /// The bytes of the base58 text in `input` (ASCII bytes), for secret text such as an `xprv`: every
    /// scratch buffer is wiped before it is freed; the caller wipes the result.
    ///
    /// - Throws: `Base58.DecodingError` at the first invalid character.
    public static func decode(text input: UnsafeRawBufferPointer) throws(DecodingError) -> [UInt8] {
        var values = [UInt8](repeating: 0, count: input.count)
        defer { SecretBytes.wipe(&values) }
        for (i, char) in input.enumerated() {
            let value = digitValues[Int(char)]
            guard value != 0xff else { throw DecodingError(offset: i) }
            values[i] = value
        }
        let zeros = values.prefix { $0 == 0 }.count
        // The number as little-endian 32-bit limbs.
        var limbs: [UInt64] = []
        limbs.reserveCapacity(values.count / 5 + 1)
        defer { limbs.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        var index = zeros
        while index < values.count {
            // Up to five digits at a time: limbs = limbs * 58^n + chunk.
            let n = min(5, values.count - index)
            var chunk: UInt64 = 0
            var multiplier: UInt64 = 1
            for i in 0..<n {
                chunk = chunk * 58 + UInt64(values[index + i])
                multiplier *= 58
            }
            index += n
            var carry = chunk
            for j in 0..<limbs.count {
                let value = limbs[j] * multiplier + carry
                limbs[j] = value & 0xffff_ffff
                carry = value >> 32
            }
            while carry > 0 {
                limbs.append(carry & 0xffff_ffff)
                carry >>= 32
            }
        }
        var length = limbs.count * 4
        while length > 0, (limbs[(length - 1) / 4] >> UInt64(8 * ((length - 1) % 4))) & 0xff == 0 { length -= 1 }
        var out = [UInt8](repeating: 0, count: zeros + length)
        for k in 0..<length {
            out[zeros + length - 1 - k] = UInt8(truncatingIfNeeded: limbs[k / 4] >> UInt64(8 * (k % 4)))
        }
        return out
    }
}
