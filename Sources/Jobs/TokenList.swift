import Foundation
import Playbook
import WalletCrypto

/// The ERC-20 tokens an operator names for the usage report (`token_list`): per chain and contract
/// address, the symbol and decimals that turn base units into amounts a person reads. The file is a
/// JSON array of `{chainId, address, symbol, decimals}` objects, or an object whose `tokens` member is
/// that array (the common token-list format; other members are ignored).
public struct TokenList: Sendable, Equatable {
    /// One token of the list.
    public struct Token: Sendable, Equatable {
        public var chainId: UInt64
        /// Lowercase 0x + 40 hex digits.
        public var address: String
        public var symbol: String
        public var decimals: Int

        /// A token; `address` is compared lowercase.
        public init(chainId: UInt64, address: String, symbol: String, decimals: Int) {
            self.chainId = chainId
            self.address = address.lowercased()
            self.symbol = symbol
            self.decimals = decimals
        }
    }

    /// The tokens by `chainId:address`.
    let tokens: [String: Token]

    /// A list of `tokens`.
    public init(_ tokens: [Token] = []) {
        self.tokens = Dictionary(tokens.map { ("\($0.chainId):\($0.address)", $0) }) { first, _ in first }
    }

    /// The token at `address` on `chainId`, or nil when the list does not name it.
    public func token(chainId: UInt64, address: String) -> Token? { tokens["\(chainId):\(address.lowercased())"] }

    /// The largest `decimals` accepted: ERC-20's `decimals()` is a uint8.
    public static let maximumDecimals = 255

    /// Reads and checks the list at `path`.
    ///
    /// - Throws: ``JobsError`` (`invalidInput`) naming the file, the line and the field: a missing or
    ///   unreadable file, bad JSON, a member missing or of the wrong kind, an address that is not 0x + 40
    ///   hex, decimals outside 0...255, or one token listed twice with different symbols or decimals.
    public static func load(path: String) throws(JobsError) -> TokenList {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            let missing = !FileManager.default.fileExists(atPath: path)
            throw JobsError(
                .invalidInput, "token list \(path): " + (missing ? "no such file" : "cannot be read"),
                inputProblem: missing ? .missing : .unreadable)
        }
        return try parse(Array(data), path: path)
    }

    /// Checks the list's bytes; `path` names it in errors.
    public static func parse(_ bytes: [UInt8], path: String) throws(JobsError) -> TokenList {
        func fail(_ line: Int, _ message: String) -> JobsError {
            JobsError(.invalidInput, "token list \(path):\(line): \(message)", inputProblem: .invalidData)
        }
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch {
            throw fail(Self.line(at: error.offset, in: bytes), "not JSON: \(error.reason)")
        }
        let entries: [JSONValue]
        let prefix: String
        if let array = root.arrayValue {
            (entries, prefix) = (array, "")
        } else if let array = root["tokens"]?.arrayValue {
            (entries, prefix) = (array, "tokens")
        } else {
            throw fail(1, "expected an array of {chainId, address, symbol, decimals}, or an object with a tokens array")
        }
        let starts = Self.elementStarts(in: bytes, inTokensMember: !prefix.isEmpty)
        var tokens: [Token] = []
        var seen: [String: Token] = [:]
        for (index, entry) in entries.enumerated() {
            let line = index < starts.count ? Self.line(at: starts[index], in: bytes) : 1
            let field = { (name: String) in "\(prefix)[\(index)].\(name)" }
            guard entry.objectValue != nil else { throw fail(line, "\(prefix)[\(index)]: expected an object") }
            let chainId: UInt64
            switch entry["chainId"] {
            case .int(let value) where value > 0: chainId = UInt64(value)
            case .string(let text) where UInt64(text).map { $0 > 0 } == true: chainId = UInt64(text)!
            case let other:
                throw fail(
                    line, "\(field("chainId")): expected a chain id (a positive integer), got \(Self.shown(other))")
            }
            guard let address = entry["address"]?.stringValue, address.count == 42, address.hasPrefix("0x"),
                address.dropFirst(2).allSatisfy(\.isHexDigit)
            else {
                throw fail(
                    line, "\(field("address")): expected 0x + 40 hex digits, got \(Self.shown(entry["address"]))")
            }
            guard let symbol = entry["symbol"]?.stringValue, (1...32).contains(symbol.count),
                symbol.allSatisfy({ !$0.isWhitespace && !$0.isNewline && $0.asciiValue.map { $0 >= 0x21 } ?? true })
            else {
                throw fail(
                    line,
                    "\(field("symbol")): expected 1 to 32 characters without spaces, got \(Self.shown(entry["symbol"]))"
                )
            }
            guard case .int(let decimals) = entry["decimals"], (0...Int64(maximumDecimals)).contains(decimals) else {
                throw fail(
                    line,
                    "\(field("decimals")): expected an integer from 0 to \(maximumDecimals), got \(Self.shown(entry["decimals"]))"
                )
            }
            let token = Token(chainId: chainId, address: address, symbol: symbol, decimals: Int(decimals))
            let key = "\(chainId):\(token.address)"
            if let earlier = seen[key] {
                guard earlier == token else {
                    throw fail(
                        line,
                        "\(prefix)[\(index)]: token \(token.address) on chain \(chainId) is listed again as "
                            + "\(token.symbol) with \(token.decimals) decimals (first \(earlier.symbol), \(earlier.decimals))"
                    )
                }
                continue
            }
            seen[key] = token
            tokens.append(token)
        }
        return TokenList(tokens)
    }

    /// A value as an error shows it (JSON, at most 40 characters), or "nothing" when absent.
    static func shown(_ value: JSONValue?) -> String {
        guard let value else { return "nothing" }
        let text = value.serialized()
        return text.count > 40 ? String(text.prefix(40)) + "..." : text
    }

    /// The 1-based line of byte `offset`.
    static func line(at offset: Int, in bytes: [UInt8]) -> Int {
        1 + bytes.prefix(max(0, min(offset, bytes.count))).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    /// The byte offsets of the list's elements (strings skipped), so an error names the line its token
    /// starts on: of the top-level array (`inTokensMember` false), or of the top-level object's `tokens`.
    static func elementStarts(in bytes: [UInt8], inTokensMember: Bool) -> [Int] {
        let depth = inTokensMember ? 2 : 1
        var starts: [Int] = []
        var level = 0
        var stringStart: Int?
        var escaped = false
        var lastKey = ""
        var inList = false
        var expectingValue = false
        for (offset, byte) in bytes.enumerated() {
            if let start = stringStart {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    stringStart = nil
                    if level == 1 { lastKey = String(decoding: bytes[(start + 1)..<offset], as: UTF8.self) }
                }
                continue
            }
            if expectingValue, ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "]")].contains(byte) {
                starts.append(offset)
                expectingValue = false
            }
            switch byte {
            case UInt8(ascii: "\""): stringStart = offset
            case UInt8(ascii: "["):
                level += 1
                if level == depth, !inTokensMember || lastKey == "tokens" { (inList, expectingValue) = (true, true) }
            case UInt8(ascii: "{"): level += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if level == depth { inList = false }
                level -= 1
            case UInt8(ascii: ","): if inList, level == depth { expectingValue = true }
            default: break
            }
        }
        return starts
    }
}
