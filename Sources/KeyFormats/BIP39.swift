import TextFormats
public import WalletCrypto

/// BIP-39 recovery phrases: the English word list, the checksum, NFKD and the seed.
///
/// See <https://github.com/bitcoin/bips/blob/master/bip-0039.mediawiki>.
public enum BIP39 {
    /// The phrase lengths BIP-39 defines (128 to 256 bits of entropy, 32 bits a step).
    public static let wordCounts = [12, 15, 18, 21, 24]
    /// PBKDF2-HMAC-SHA512 iterations of the seed.
    public static let seedIterations = 2048

    /// The English words as bytes, for lookups that never make a `String` of a phrase's word.
    static let englishWordBytes: [[UInt8]] = englishWords.map { Array($0.utf8) }

    /// The index of `word` (lowercase ASCII bytes) in the English list, by binary search; nil if absent.
    static func index(of word: UnsafeRawBufferPointer) -> Int? {
        var low = 0
        var high = englishWordBytes.count
        while low < high {
            let middle = (low + high) / 2
            let candidate = englishWordBytes[middle]
            if candidate.lexicographicallyPrecedes(word) {
                low = middle + 1
            } else if word.lexicographicallyPrecedes(candidate) {
                high = middle
            } else {
                return middle
            }
        }
        return nil
    }

    /// `bytes` in Unicode NFKD, as BIP-39 normalizes phrases and passphrases, in secret memory throughout.
    ///
    /// ASCII text is its own NFKD and is returned untouched. Other text is decoded, decomposed (the
    /// table of `BIP39+NFKDTable.swift`, made by scripts/nfkd-table.swift from the toolchain's own NFKD;
    /// Hangul syllables by Unicode's algorithm), put in canonical order and encoded again, every step in
    /// wiped buffers: no `String` ever holds the text.
    ///
    /// - Throws: `KeyFormatError.invalidPassphrase` (with `what` in the message) when the bytes are not UTF-8.
    static func normalized(_ bytes: SecretBytes, what: String) throws(KeyFormatError) -> SecretBytes {
        let ascii = bytes.withUnsafeBytes { $0.allSatisfy { $0 < 0x80 } }
        if ascii { return bytes }
        // One scalar decomposes into at most `NFKD.maximumExpansion` scalars; every byte is at most one.
        var count = 0
        var valid = true
        let scalars = SecretBytes(count: bytes.count * NFKD.maximumExpansion * 4) { scratch in
            let out = scratch.bindMemory(to: UInt32.self)
            bytes.withUnsafeBytes { input in
                var iterator = input.makeIterator()
                var decoder = UTF8()
                decoding: while true {
                    switch decoder.decode(&iterator) {
                    case .scalarValue(let scalar): NFKD.append(scalar.value, to: out, count: &count)
                    case .emptyInput: break decoding
                    case .error:
                        valid = false
                        break decoding
                    }
                }
            }
            NFKD.reorder(out, count: count)
        }
        guard valid else { throw KeyFormatError(.invalidPassphrase, "the \(what) is not valid UTF-8") }
        return scalars.withUnsafeBytes { raw in
            let decomposed = UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt32.self)[..<count])
            let length = decomposed.reduce(0) { $0 + UTF8.width(Unicode.Scalar($1)!) }
            return SecretBytes(count: length) { out in
                var position = 0
                for value in decomposed {
                    UTF8.encode(Unicode.Scalar(value)!) { unit in
                        out[position] = unit
                        position += 1
                    }
                }
            }
        }
    }

    /// Unicode NFKD over scalars in caller-owned buffers (see ``normalized(_:what:)``).
    enum NFKD {
        /// The most scalars one scalar decomposes into (U+FDFA's 18), checked when the table is read.
        static let maximumExpansion = 18

        /// The full decompositions by scalar, read once from ``nfkdDecompositionText``.
        static let decompositions: [UInt32: [UInt32]] = {
            var table: [UInt32: [UInt32]] = [:]
            for entry in nfkdDecompositionText.split(separator: ";") {
                let parts = entry.split(separator: ":")
                let mapping = parts[1].split(separator: " ").map { UInt32($0, radix: 16)! }
                precondition(mapping.count <= maximumExpansion, "NFKD table: an expansion beyond the bound")
                table[UInt32(parts[0], radix: 16)!] = mapping
            }
            return table
        }()

        /// The canonical combining classes other than 0, read once from ``nfkdCombiningClassText``.
        static let combiningClasses: [UInt32: UInt8] = {
            var table: [UInt32: UInt8] = [:]
            for entry in nfkdCombiningClassText.split(separator: ";") {
                let parts = entry.split(separator: ":")
                table[UInt32(parts[0], radix: 16)!] = UInt8(parts[1], radix: 16)!
            }
            return table
        }()

        /// Appends the full compatibility decomposition of `scalar` to `out` at `count`.
        static func append(_ scalar: UInt32, to out: UnsafeMutableBufferPointer<UInt32>, count: inout Int) {
            // Hangul syllables (Unicode 3.12): leading consonant, vowel and, when present, trailing consonant.
            if (0xAC00...0xD7A3).contains(scalar) {
                let index = scalar - 0xAC00
                out[count] = 0x1100 + index / 588
                out[count + 1] = 0x1161 + (index % 588) / 28
                count += 2
                if index % 28 != 0 {
                    out[count] = 0x11A7 + index % 28
                    count += 1
                }
                return
            }
            guard let mapping = decompositions[scalar] else {
                out[count] = scalar
                count += 1
                return
            }
            for value in mapping {
                out[count] = value
                count += 1
            }
        }

        /// Puts every run of combining marks (class not 0) in order of class, stably: the canonical order.
        static func reorder(_ scalars: UnsafeMutableBufferPointer<UInt32>, count: Int) {
            guard count > 1 else { return }
            for position in 1..<count {
                let value = scalars[position]
                let combining = combiningClasses[value] ?? 0
                guard combining != 0 else { continue }
                var slot = position
                while slot > 0, let previous = combiningClasses[scalars[slot - 1]], previous > combining {
                    scalars[slot] = scalars[slot - 1]
                    slot -= 1
                }
                scalars[slot] = value
            }
        }
    }
}

/// A BIP-39 recovery phrase whose words are all in the English list and whose checksum matches, held in
/// secret memory as the list spells it: lowercase words joined by one space.
///
/// A phrase is read case-insensitively with any run of spaces, tabs or line breaks between words (after
/// NFKD), and its seed is computed from that canonical form, so a capital or a double space in a cell does
/// not change the wallets. Errors name word positions only, never a word (no "did you mean" either: a
/// suggestion would disclose the word). `description` never shows the phrase.
public struct Mnemonic: Sendable, CustomStringConvertible {
    /// The canonical phrase (UTF-8, ASCII in fact).
    let phrase: SecretBytes
    /// The number of words: 12, 15, 18, 21 or 24.
    public let wordCount: Int

    /// Reads and checks `phrase`.
    ///
    /// - Throws: `KeyFormatError` `.emptyKey` (no words), `.unknownWord` (the positions of the words
    ///   outside the list), `.wrongWordCount`, `.mnemonicChecksum`.
    public init(phrase: SecretBytes) throws(KeyFormatError) {
        let text = try BIP39.normalized(phrase, what: "recovery phrase")
        // Word indices, 11 bits each, in secret memory (they are the entropy).
        var unknown: [Int] = []
        var count = 0
        let indices = SecretBytes(count: 2 * 24) { slots in
            text.withUnsafeBytes { bytes in
                var word = [UInt8](repeating: 0, count: 16)
                defer { SecretBytes.wipe(&word) }
                var position = 0
                while position < bytes.count {
                    while position < bytes.count, ASCII.isWhitespace(bytes[position]) { position += 1 }
                    guard position < bytes.count else { break }
                    var length = 0
                    var tooLong = false
                    while position < bytes.count, !ASCII.isWhitespace(bytes[position]) {
                        let byte = bytes[position]
                        if length < word.count {
                            // ASCII letters fold to lowercase; anything else cannot match the list.
                            word[length] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                            length += 1
                        } else {
                            tooLong = true
                        }
                        position += 1
                    }
                    count += 1
                    let found =
                        tooLong
                        ? nil
                        : word.withUnsafeBytes { BIP39.index(of: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
                    if let found, count <= 24 {
                        slots[2 * (count - 1)] = UInt8(truncatingIfNeeded: found >> 8)
                        slots[2 * (count - 1) + 1] = UInt8(truncatingIfNeeded: found)
                    } else if found == nil {
                        unknown.append(count)
                    }
                }
            }
        }
        guard count > 0 else { throw KeyFormatError(.emptyKey, "the recovery phrase is empty") }
        if !unknown.isEmpty { throw KeyFormatError(.unknownWord, Self.unknownWordsReason(unknown)) }
        guard BIP39.wordCounts.contains(count) else {
            throw KeyFormatError(
                .wrongWordCount, "the recovery phrase has \(count) words; BIP-39 phrases have 12, 15, 18, 21 or 24")
        }
        let entropy = Self.entropy(indices: indices, wordCount: count)
        guard let entropy, Self.checksumMatches(entropy: entropy, indices: indices, wordCount: count) else {
            throw KeyFormatError(
                .mnemonicChecksum,
                "the recovery phrase's checksum does not match its words (a word is wrong or out of order; "
                    + "the last word carries the checksum)")
        }
        self.phrase = Self.canonicalPhrase(indices: indices, wordCount: count)
        wordCount = count
    }

    /// The phrase of `entropy` (16, 20, 24, 28 or 32 bytes): its bits and checksum as 11-bit word indices.
    ///
    /// - Throws: `KeyFormatError.wrongLength` for entropy of another size.
    public init(entropy: SecretBytes) throws(KeyFormatError) {
        guard [16, 20, 24, 28, 32].contains(entropy.count) else {
            throw KeyFormatError(
                .wrongLength, "BIP-39 entropy is 16, 20, 24, 28 or 32 bytes, not \(entropy.count)")
        }
        let count = entropy.count * 3 / 4
        var digest = [UInt8](repeating: 0, count: 32)
        defer { SecretBytes.wipe(&digest) }
        entropy.withUnsafeBytes { bytes in digest.withUnsafeMutableBytes { SHA256.hash(bytes, into: $0.baseAddress!) } }
        let checksum = digest[0]
        let indices = SecretBytes(count: 2 * 24) { slots in
            entropy.withUnsafeBytes { bits in
                for word in 0..<count {
                    var value = 0
                    for bit in 0..<11 {
                        let offset = word * 11 + bit
                        let set =
                            offset < bits.count * 8
                            ? (bits[offset / 8] >> (7 - offset % 8)) & 1
                            : (checksum >> (7 - (offset - bits.count * 8))) & 1
                        value = value << 1 | Int(set)
                    }
                    slots[2 * word] = UInt8(truncatingIfNeeded: value >> 8)
                    slots[2 * word + 1] = UInt8(truncatingIfNeeded: value)
                }
            }
        }
        phrase = Self.canonicalPhrase(indices: indices, wordCount: count)
        wordCount = count
    }

    /// The phrase as the list spells it, words joined by one space. Handle with care.
    public var canonicalPhrase: SecretBytes { phrase }

    /// The entropy the words carry (without the checksum bits). Handle with care.
    public var entropy: SecretBytes {
        // The canonical phrase parses again by construction.
        let indices = SecretBytes(count: 2 * 24) { slots in
            phrase.withUnsafeBytes { bytes in
                var word = 0
                var start = 0
                for position in 0...bytes.count where position == bytes.count || bytes[position] == 0x20 {
                    let index = BIP39.index(of: UnsafeRawBufferPointer(rebasing: bytes[start..<position]))!
                    slots[2 * word] = UInt8(truncatingIfNeeded: index >> 8)
                    slots[2 * word + 1] = UInt8(truncatingIfNeeded: index)
                    word += 1
                    start = position + 1
                }
            }
        }
        return Self.entropy(indices: indices, wordCount: wordCount)!
    }

    /// The 64-byte BIP-39 seed: PBKDF2-HMAC-SHA512 of the phrase with the salt "mnemonic" + the NFKD
    /// passphrase, 2,048 iterations (through OpenSSL).
    ///
    /// - Throws: `KeyFormatError.invalidPassphrase` when the passphrase is not UTF-8.
    public func seed(passphrase: SecretBytes = SecretBytes([])) throws(KeyFormatError) -> SecretBytes {
        let normalized = try BIP39.normalized(passphrase, what: "passphrase")
        var salt = [UInt8]()
        salt.reserveCapacity(8 + normalized.count)
        salt.append(contentsOf: Array("mnemonic".utf8))
        normalized.withUnsafeBytes { salt.append(contentsOf: $0) }
        defer { SecretBytes.wipe(&salt) }
        do {
            return try PBKDF2.sha512(password: phrase, salt: salt, iterations: BIP39.seedIterations, length: 64)
        } catch {
            // Only for lengths beyond OpenSSL's int, which a phrase and a cell-sized passphrase never reach.
            throw KeyFormatError(.invalidPassphrase, "the seed could not be computed: \(error)")
        }
    }

    public var description: String { "Mnemonic(\(wordCount) words, redacted)" }

    /// "word 7 is not in the BIP-39 English list", or "words 3, 7 and 9 are not ...".
    static func unknownWordsReason(_ positions: [Int]) -> String {
        guard positions.count > 1 else { return "word \(positions[0]) is not in the BIP-39 English list" }
        let listed = positions.dropLast().map(String.init).joined(separator: ", ") + " and \(positions.last!)"
        return "words \(listed) are not in the BIP-39 English list"
    }

    /// The entropy bytes of `wordCount` 11-bit indices (the bits before the checksum).
    private static func entropy(indices: SecretBytes, wordCount: Int) -> SecretBytes? {
        let entropyBytes = wordCount * 4 / 3
        return SecretBytes(count: entropyBytes) { out in
            indices.withUnsafeBytes { slots in
                for bit in 0..<(entropyBytes * 8) {
                    let word = bit / 11
                    let value = Int(slots[2 * word]) << 8 | Int(slots[2 * word + 1])
                    let set = UInt8((value >> (10 - bit % 11)) & 1)
                    out[bit / 8] |= set << (7 - UInt8(bit % 8))
                }
            }
        }
    }

    /// Whether the last `wordCount / 3` bits of the indices are the first bits of SHA-256(entropy).
    private static func checksumMatches(entropy: SecretBytes, indices: SecretBytes, wordCount: Int) -> Bool {
        let checksumBits = wordCount / 3
        var digest = [UInt8](repeating: 0, count: 32)
        defer { SecretBytes.wipe(&digest) }
        entropy.withUnsafeBytes { bytes in digest.withUnsafeMutableBytes { SHA256.hash(bytes, into: $0.baseAddress!) } }
        let expected = Int(digest[0] >> (8 - checksumBits))
        let last = indices.withUnsafeBytes { Int($0[2 * (wordCount - 1)]) << 8 | Int($0[2 * (wordCount - 1) + 1]) }
        let found = last & ((1 << checksumBits) - 1)
        return expected == found
    }

    /// The words of the indices, joined by one space, in secret memory.
    private static func canonicalPhrase(indices: SecretBytes, wordCount: Int) -> SecretBytes {
        indices.withUnsafeBytes { slots in
            let word = { (position: Int) in
                BIP39.englishWordBytes[Int(slots[2 * position]) << 8 | Int(slots[2 * position + 1])]
            }
            let length = (0..<wordCount).reduce(wordCount - 1) { $0 + word($1).count }
            return SecretBytes(count: length) { out in
                var offset = 0
                for position in 0..<wordCount {
                    if position > 0 {
                        out[offset] = 0x20
                        offset += 1
                    }
                    for byte in word(position) {
                        out[offset] = byte
                        offset += 1
                    }
                }
            }
        }
    }
}
