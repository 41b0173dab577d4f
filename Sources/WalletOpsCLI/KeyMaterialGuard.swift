import TextFormats

/// Refuses private keys typed on the command line.
///
/// Command-line arguments are saved in shell history and are readable by every user of the
/// machine through `ps` and `/proc/<pid>/cmdline`, so a key given as an argument has leaked.
/// The parser checks every value, every positional argument and every unknown word; one that has
/// the shape of a private key is refused with ``refusal(for:)`` and is never echoed back.
public enum KeyMaterialGuard {
    /// Whether `text` has the shape of a private key: 64 or 128 hex digits (with or without `0x`),
    /// a base58 string of the length of a 32- or 64-byte value, or a JSON array of 32 or more
    /// numbers (the Solana CLI keypair file format).
    public static func looksLikePrivateKey(_ text: String) -> Bool {
        var body = Substring(text.trimmingASCIIWhitespace())
        if body.hasPrefix("[") { return looksLikeByteArray(body) }
        if body.hasPrefix("0x") || body.hasPrefix("0X") { body = body.dropFirst(2) }
        if (body.utf8.count == 64 || body.utf8.count == 128) && body.utf8.allSatisfy({ ASCII.hexValue($0) != nil }) {
            return true
        }
        let length = body.utf8.count
        if (43...44).contains(length) || (86...88).contains(length) {
            return body.utf8.allSatisfy(\.isBase58Digit)
        }
        return false
    }

    /// The message shown when `place` (an option like `--key-file`, or "an argument") was given
    /// something that looks like a key. It does not contain the value.
    public static func refusal(for place: String) -> String {
        "\(place) looks like a private key; keys are never accepted on the command line, because arguments "
            + "are saved in shell history and visible to other users through ps and /proc. Put the key in a "
            + "file readable only by you (chmod 600) and pass its path, or pass - and send the key on "
            + "standard input"
    }

    private static func looksLikeByteArray(_ text: Substring) -> Bool {
        guard text.hasSuffix("]") else { return false }
        let items = text.dropFirst().dropLast().split(separator: ",")
        return items.count >= 32
            && items.allSatisfy { item in
                let digits = item.trimmingASCIIWhitespace()
                return !digits.isEmpty && digits.utf8.allSatisfy { (0x30...0x39).contains($0) }
            }
    }
}

extension StringProtocol {
    /// The text without leading and trailing ASCII spaces, tabs, CR and LF.
    func trimmingASCIIWhitespace() -> Substring {
        let text = Substring(self)
        let start = text.firstIndex { !$0.isASCIIWhitespace } ?? text.endIndex
        let end = text.lastIndex { !$0.isASCIIWhitespace }.map { text.index(after: $0) } ?? start
        return start < end ? text[start..<end] : text[start..<start]
    }
}

extension Character {
    var isASCIIWhitespace: Bool { self == " " || self == "\t" || self == "\n" || self == "\r" || self == "\r\n" }
}

extension UInt8 {
    /// In the Bitcoin base58 alphabet (no 0, O, I, l).
    var isBase58Digit: Bool {
        switch self {
        case 0x31...0x39, 0x41...0x48, 0x4A...0x4E, 0x50...0x5A, 0x61...0x6B, 0x6D...0x7A: return true
        default: return false
        }
    }
}
