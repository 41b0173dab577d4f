import TextFormats
import WalletCrypto

extension KeyFileReader {
    /// The 32-byte secp256k1 scalar in `contents`: 32 raw bytes, or 64 hex digits with an optional
    /// `0x` and surrounding ASCII whitespace.
    static func ethereumSecret(_ contents: SecretBytes, source: String) throws -> SecretBytes {
        if contents.count == 32 && !isText(contents) { return contents }
        return try contents.withUnsafeBytes { raw throws -> SecretBytes in
            var text = raw[...].trimmingASCIIWhitespaceBytes()
            if text.count >= 2 && text[text.startIndex] == 0x30 && (text[text.startIndex + 1] | 0x20) == 0x78 {
                text = text.dropFirst(2)
            }
            guard text.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                throw CLIError.dataError(
                    "\(source): expected 64 hex digits or 32 raw bytes, found \(raw.count) bytes of binary data")
            }
            guard text.count == 64 else {
                throw CLIError.dataError(
                    "\(source): expected 64 hex digits (optionally after 0x) or 32 raw bytes, found \(text.count) characters"
                )
            }
            if let bad = text.firstIndex(where: { ASCII.hexValue($0) == nil }) {
                throw CLIError.dataError(
                    "\(source): expected 64 hex digits, found a character that is not a hex digit at position \(bad - text.startIndex + 1)"
                )
            }
            return SecretBytes(count: 32) { out in
                for i in 0..<32 {
                    let high = ASCII.hexValue(text[text.startIndex + 2 * i])!
                    let low = ASCII.hexValue(text[text.startIndex + 2 * i + 1])!
                    out[i] = high << 4 | low
                }
            }
        }
    }

    /// The Ed25519 seed (32 bytes) or keypair (64 bytes) in `contents`: raw bytes, base58, or the
    /// Solana CLI JSON array, text with surrounding ASCII whitespace.
    static func solanaSecret(_ contents: SecretBytes, source: String) throws -> SecretBytes {
        if (contents.count == 32 || contents.count == 64) && !isText(contents) { return contents }
        return try contents.withUnsafeBytes { raw throws -> SecretBytes in
            let text = raw[...].trimmingASCIIWhitespaceBytes()
            if text.count == 64 && text.allSatisfy({ ASCII.hexValue($0) != nil }) {
                throw CLIError.dataError(
                    "\(source): found 64 hex digits; a Solana key file holds base58 text, a JSON array of 64 "
                        + "numbers, or 32/64 raw bytes")
            }
            if text.first == 0x5B {  // "["
                return try jsonByteArray(text, source: source)
            }
            guard text.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw CLIError.dataError(
                    "\(source): expected base58 text, a JSON array of 64 numbers, or 32/64 raw bytes, "
                        + "found \(raw.count) bytes of binary data")
            }
            // Base58.decode takes a string: this copy and the decoder's work buffers are not wiped
            // (WalletCrypto has no secret-aware base58 decoder yet); the decoded bytes are.
            var decoded: [UInt8]
            do throws(Base58.DecodingError) {
                decoded = try Base58.decode(String(decoding: text, as: UTF8.self))
            } catch {
                throw CLIError.dataError(
                    "\(source): not base58: a character that is not in the base58 alphabet at position \(error.offset + 1)"
                )
            }
            defer { SecretBytes.wipe(&decoded) }
            guard decoded.count == 32 || decoded.count == 64 else {
                throw CLIError.dataError(
                    "\(source): base58 text decodes to \(decoded.count) bytes, expected 32 (a seed) or 64 (a keypair)")
            }
            return SecretBytes(decoded)
        }
    }

    /// Whether every byte is printable ASCII or whitespace. A file of key length that is text is
    /// parsed as text: a truncated hex key plus a newline (32 bytes) must be reported, not read as
    /// raw bytes; random raw key bytes are all printable with probability about 1e-13.
    static func isText(_ contents: SecretBytes) -> Bool {
        contents.withUnsafeBytes { raw in
            raw.allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        }
    }

    /// `[n, n, ...]` with 64 numbers from 0 to 255, written straight into secret storage.
    private static func jsonByteArray(_ text: Slice<UnsafeRawBufferPointer>, source: String) throws -> SecretBytes {
        guard text.last == 0x5D else {  // "]"
            throw CLIError.dataError("\(source): a JSON array of 64 numbers must end with ]")
        }
        let body = text.dropFirst().dropLast()
        let items = body.split(separator: 0x2C, omittingEmptySubsequences: false)  // ","
        guard items.count == 64 else {
            throw CLIError.dataError(
                "\(source): expected a JSON array of 64 numbers (a Solana CLI keypair), found \(items.count) items")
        }
        for (index, item) in items.enumerated() {
            let digits = item.trimmingASCIIWhitespaceBytes()
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ (0x30...0x39).contains($0) }),
                digits.reduce(0, { $0 * 10 + Int($1 - 0x30) }) <= 255
            else {
                throw CLIError.dataError(
                    "\(source): item \(index + 1) of the JSON array is not a number from 0 to 255")
            }
        }
        return SecretBytes(count: 64) { out in
            for (index, item) in items.enumerated() {
                out[index] = UInt8(item.trimmingASCIIWhitespaceBytes().reduce(0, { $0 * 10 + Int($1 - 0x30) }))
            }
        }
    }
}

extension BidirectionalCollection where Element == UInt8, SubSequence == Self {
    /// Without leading and trailing ASCII spaces, tabs, CR and LF.
    func trimmingASCIIWhitespaceBytes() -> SubSequence {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        var result = self
        while let first = result.first, isSpace(first) { result = result.dropFirst() }
        while let last = result.last, isSpace(last) { result = result.dropLast() }
        return result
    }
}
