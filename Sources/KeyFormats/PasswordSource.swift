import Foundation
import TextFormats
public import WalletCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where keystore passwords come from. Never the command line: arguments are visible to every user
/// of the machine (`ps`) and stay in shell history.
///
/// Passwords are returned as `SecretBytes`; an environment variable's bytes are copied straight from
/// the C environment, a file's through a wiped buffer, so neither passes through a Swift `String`.
public enum PasswordSource: Sendable {
    /// The value of an environment variable (an empty value is an empty password).
    case environment(String)
    /// The contents of a file, without one trailing LF or CRLF.
    case file(String)
    /// A different password per keystore file name.
    case map(PasswordMap)

    /// The longest password file accepted.
    public static let maximumFileBytes = 4096

    /// The password for the keystore file named `fileName`.
    ///
    /// - Throws: `KeyFormatError` `.missingPassword` (class `decryption`) when the variable is unset or
    ///   the map has no entry; `.readFailed`/`.fileTooLarge` (class `io`) for a password file.
    public func password(for fileName: String) throws(KeyFormatError) -> SecretBytes {
        switch self {
        case .environment(let name): return try Self.readEnvironment(name)
        case .file(let path): return try Self.readFile(path)
        case .map(let map):
            guard let entry = map.entries[fileName] else {
                throw KeyFormatError(.missingPassword, "the password map \(map.path) has no entry for \(fileName)")
            }
            switch entry {
            case .environment(let name): return try Self.readEnvironment(name)
            case .file(let path): return try Self.readFile(path)
            }
        }
    }

    static func readEnvironment(_ name: String) throws(KeyFormatError) -> SecretBytes {
        guard let value = getenv(name) else {
            throw KeyFormatError(.missingPassword, "the password environment variable \(name) is not set")
        }
        let count = strlen(value)
        return SecretBytes(count: count) { out in
            out.copyMemory(from: UnsafeRawBufferPointer(start: value, count: count))
        }
    }

    static func readFile(_ path: String) throws(KeyFormatError) -> SecretBytes {
        let contents = try FileInput(path: path).readAll(limit: maximumFileBytes)
        return contents.withUnsafeBytes { raw in
            var end = raw.count
            if end > 0, raw[end - 1] == 0x0A {
                end -= 1
                if end > 0, raw[end - 1] == 0x0D { end -= 1 }
            }
            return SecretBytes.copying(UnsafeRawBufferPointer(rebasing: raw[0..<end]))
        }
    }
}

/// A per-file password map: keystore file name -> a password file or an environment variable.
///
/// Two spellings, chosen by the map file's extension:
/// - JSON (`.json`): `{"key1.json": {"file": "pw/key1.txt"}, "key2.json": {"env": "KEY2_PASSWORD"}}`
/// - CSV (otherwise): a header `file,password_file,password_env` and one row per keystore with
///   exactly one of the two password cells filled.
///
/// Relative password file paths are resolved against the map file's directory. The map holds
/// names only, never passwords.
public struct PasswordMap: Sendable {
    /// Where one file's password is.
    public enum Entry: Sendable, Hashable {
        /// A password file's path.
        case file(String)
        /// An environment variable's name.
        case environment(String)
    }

    /// The map file (for messages).
    public let path: String
    /// Keystore file name -> where its password is.
    public let entries: [String: Entry]

    /// A map from entries given in code.
    public init(entries: [String: Entry], path: String = "(password map)") {
        self.entries = entries
        self.path = path
    }

    /// The most bytes a map file may have.
    public static let maximumFileBytes = 16 << 20

    /// Reads a map file (JSON or CSV, see the type's documentation).
    ///
    /// - Throws: `KeyFormatError` (class `io` or `format`) naming the file and the bad entry.
    public init(contentsOf path: String) throws(KeyFormatError) {
        self.path = path
        let bytes = try FileInput(path: path).readAll(limit: Self.maximumFileBytes).unsafeCopy()
        let base = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        func resolve(_ file: String) -> String { file.hasPrefix("/") ? file : DirectoryListing.join(base, file) }
        var entries: [String: Entry] = [:]
        if path.lowercased().hasSuffix(".json") {
            // Strict first: two entries for one file would otherwise be resolved by JSONSerialization's choice.
            do {
                _ = try JSONValue.parse(bytes, maxDepth: 4)
            } catch {
                throw KeyFormatError(.malformedJSON, "the password map is not JSON: \(error)", file: path)
            }
            guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                throw KeyFormatError(.malformedJSON, "the password map is not a JSON object", file: path)
            }
            for (name, value) in object {
                let spec = value as? [String: Any]
                let file = spec?["file"] as? String
                let env = spec?["env"] as? String
                switch (file, env) {
                case (let file?, nil) where !file.isEmpty: entries[name] = .file(resolve(file))
                case (nil, let env?) where !env.isEmpty: entries[name] = .environment(env)
                default:
                    throw KeyFormatError(
                        .malformedJSON, "the entry for \(name) must be {\"file\": path} or {\"env\": name}", file: path)
                }
            }
        } else {
            let rows = CSVRecords.parse(bytes)
            guard let header = rows.first?.map({ $0.trimmingASCIIWhitespace().lowercased() }),
                let fileColumn = header.firstIndex(of: "file")
            else {
                throw KeyFormatError(
                    .missingColumn, "the password map needs a header with file, password_file, password_env",
                    file: path, line: 1)
            }
            let pathColumn = header.firstIndex(of: "password_file")
            let envColumn = header.firstIndex(of: "password_env")
            for (index, row) in rows.enumerated().dropFirst() {
                func cell(_ column: Int?) -> String? {
                    guard let column, column < row.count else { return nil }
                    let value = row[column].trimmingASCIIWhitespace()
                    return value.isEmpty ? nil : value
                }
                if row.allSatisfy({ $0.trimmingASCIIWhitespace().isEmpty }) { continue }
                guard let name = cell(fileColumn) else {
                    throw KeyFormatError(
                        .missingColumn, "row \(index) of the password map has no file name", file: path)
                }
                switch (cell(pathColumn), cell(envColumn)) {
                case (let file?, nil): entries[name] = .file(resolve(file))
                case (nil, let env?): entries[name] = .environment(env)
                default:
                    throw KeyFormatError(
                        .raggedRow,
                        "row \(index) of the password map must fill exactly one of password_file and password_env",
                        file: path)
                }
            }
        }
        self.entries = entries
    }
}
