import TextFormats
import WalletCrypto

extension KeyParser {
    /// 64 hex digits (after trimming and an optional `0x`), decoded straight into secret storage.
    static func ethereumHex(_ input: UnsafeRawBufferPointer) throws(KeyFormatError) -> SecretBytes {
        var text = ASCII.trimmed(input)
        guard !text.isEmpty else { throw KeyFormatError(.emptyKey, "the private key is empty") }
        if text.count >= 2, text[text.startIndex] == 0x30, text[text.startIndex + 1] | 0x20 == 0x78 {
            text = text.dropFirst(2)
        }
        if let bad = text.firstIndex(where: { !ASCII.isPrintable($0) }) {
            throw KeyFormatError(
                .notHex,
                "expected 64 hex digits, found a byte that is not printable ASCII at position \(bad - input.startIndex + 1)"
            )
        }
        guard text.count == 64 else {
            throw KeyFormatError(
                .wrongLength, "expected 64 hex digits (optionally after 0x), found \(text.count) characters")
        }
        if let bad = text.firstIndex(where: { ASCII.hexValue($0) == nil }) {
            throw KeyFormatError(
                .notHex,
                "expected 64 hex digits, the character at position \(bad - input.startIndex + 1) is not a hex digit")
        }
        return SecretBytes(count: 32) { out in
            for i in 0..<32 {
                out[i] =
                    ASCII.hexValue(text[text.startIndex + 2 * i])! << 4 | ASCII.hexValue(
                        text[text.startIndex + 2 * i + 1])!
            }
        }
    }

    /// base58 text of a 32-byte seed or 64-byte keypair, decoded into wiped scratch memory.
    static func solanaBase58(_ input: UnsafeRawBufferPointer) throws(KeyFormatError) -> SecretBytes {
        let text = ASCII.trimmed(input)
        guard !text.isEmpty else { throw KeyFormatError(.emptyKey, "the private key is empty") }
        if let bad = text.firstIndex(where: { !ASCII.isPrintable($0) }) {
            throw KeyFormatError(
                .notBase58,
                "expected base58 text, found a byte that is not printable ASCII at position \(bad - input.startIndex + 1)"
            )
        }
        if text.count == 64 && text.allSatisfy({ ASCII.hexValue($0) != nil }) {
            throw KeyFormatError(
                .ambiguousBase58,
                "found 64 hex digits, not a Solana key: expected base58 text of a 32-byte seed or a 64-byte keypair")
        }
        if text.count == 32 || text.count == 64 {
            throw KeyFormatError(
                .ambiguousBase58,
                "base58 text of exactly \(text.count) characters is ambiguous with raw bytes or hex and is refused")
        }
        guard text.count <= maximumBase58Characters else {
            throw KeyFormatError(
                .wrongLength,
                "expected base58 of a 32-byte seed or a 64-byte keypair (at most \(maximumBase58Characters) characters), found \(text.count) characters"
            )
        }
        return try Base58Secret.decode(text, inputStart: input.startIndex)
    }

    /// Raw key bytes of one of `lengths`, refusing printable text that has a key's length.
    static func raw(_ input: UnsafeRawBufferPointer, lengths: [Int], type: KeyType) throws(KeyFormatError)
        -> SecretBytes
    {
        try checkRawLength(input.count, lengths: lengths, type: type)
        if isText(input) {
            throw KeyFormatError(
                .notRawBytes,
                "\(input.count) bytes of printable text, not raw key bytes (is this a truncated text key?)")
        }
        return SecretBytes.copying(input)
    }

    /// Whether every byte is printable ASCII or ASCII whitespace. Random key bytes are all printable
    /// with negligible probability: text of a raw key's length is far more likely a truncated hex or
    /// base58 key, which must be refused, not imported as bytes.
    static func isText(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.allSatisfy { ASCII.isPrintable($0) || ASCII.isWhitespace($0) }
    }

    /// Refuses raw key bytes that are empty or of none of `lengths`.
    static func checkRawLength(_ count: Int, lengths: [Int], type: KeyType) throws(KeyFormatError) {
        guard count > 0 else { throw KeyFormatError(.emptyKey, "the private key is empty") }
        guard lengths.contains(count) else {
            let expected = lengths.map(String.init).joined(separator: " or ")
            throw KeyFormatError(.wrongLength, "expected \(expected) raw bytes for a \(type) key, found \(count)")
        }
    }

    /// The lengths of a raw key of `type`: 32 (Ethereum scalar, Solana seed) or 64 (Solana keypair).
    static func rawLengths(_ type: KeyType) -> [Int] { type == .ethereum ? [32] : [32, 64] }

}

/// A base58 decoder whose work buffer is wiped: WalletCrypto's `Base58.decode` takes a `String` and
/// returns an array, neither of which the caller can wipe.
enum Base58Secret {
    /// The most bytes a key can decode to.
    static let capacity = 64

    /// Decodes `text` into a secret buffer of 32 or 64 bytes.
    ///
    /// - Throws: `.notBase58` (a character outside the alphabet) or `.wrongLength` (not 32 or 64 bytes).
    static func decode(_ text: Slice<UnsafeRawBufferPointer>, inputStart: Int) throws(KeyFormatError) -> SecretBytes {
        let characters = UnsafeRawBufferPointer(rebasing: text)
        // Every character first: the error names the first one outside the alphabet.
        var leadingZeros = 0
        var countingZeros = true
        for (offset, character) in characters.enumerated() {
            let value = digit(character)
            guard value != 0xff else {
                throw KeyFormatError(
                    .notBase58,
                    "expected base58 text, the character at position \(text.startIndex + offset - inputStart + 1) is not in the base58 alphabet"
                )
            }
            if countingZeros {
                if value == 0 { leadingZeros += 1 } else { countingZeros = false }
            }
        }
        // The number as little-endian 32-bit limbs, five digits (58^5 < 2^32) folded in per step; one
        // limb past the capacity catches an overflow. The limbs are on the stack, wiped before release.
        let limbCapacity = capacity / 4 + 1
        return try withUnsafeTemporaryAllocation(of: UInt32.self, capacity: limbCapacity) {
            limbs throws(KeyFormatError) -> SecretBytes in
            limbs.initialize(repeating: 0)
            defer { SecretBytes.wipe(limbs.baseAddress, byteCount: limbCapacity * 4) }
            var used = 0
            var overflow = false
            var index = leadingZeros
            while index < characters.count && !overflow {
                let digits = min(5, characters.count - index)
                var group: UInt64 = 0
                var multiplier: UInt64 = 1
                for offset in 0..<digits {
                    group = group &* 58 &+ UInt64(digit(characters[index + offset]))
                    multiplier &*= 58
                }
                index += digits
                var carry = group
                for limb in 0..<used {
                    let value = UInt64(limbs[limb]) &* multiplier &+ carry
                    limbs[limb] = UInt32(truncatingIfNeeded: value)
                    carry = value >> 32
                }
                while carry != 0 {
                    guard used < limbCapacity else {
                        overflow = true
                        break
                    }
                    limbs[used] = UInt32(truncatingIfNeeded: carry)
                    carry >>= 32
                    used += 1
                }
            }
            // Significant bytes of the number, least significant first.
            func byte(_ position: Int) -> UInt8 {
                UInt8(truncatingIfNeeded: limbs[position / 4] >> (8 * (position % 4)))
            }
            var length = used * 4
            while length > 0 && byte(length - 1) == 0 { length -= 1 }
            overflow = overflow || length > capacity
            let total = leadingZeros + length
            guard !overflow, total == 32 || total == 64 else {
                let found = overflow ? "more than \(capacity) bytes" : "\(total) bytes"
                throw KeyFormatError(
                    .wrongLength, "base58 text decodes to \(found), expected 32 (a seed) or 64 (a keypair)")
            }
            return SecretBytes(count: total) { out in
                // out is zeroed: the leading zero bytes are already in place.
                for position in 0..<length { out[total - 1 - position] = byte(position) }
            }
        }
    }

    /// Each byte's base58 value, 0xff outside the alphabet: one load instead of six range tests.
    private static let digits: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (value, character) in "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// The value of a base58 (Bitcoin alphabet) character, or 0xff.
    @inline(__always)
    static func digit(_ c: UInt8) -> UInt8 { digits.withUnsafeBufferPointer { $0[Int(c)] } }
}
