import Foundation
import KeyFormats
import WalletCrypto

/// Reads a private key from a key file (or standard input for `-`) and says precisely what is wrong
/// with a bad file without showing any of its content. The parsing is KeyFormats' (``KeyFile``,
/// ``KeyParser``), so the CLI accepts a key exactly as the core, the SDK and the jobs do; this reader
/// owns only the file: where it is, its size limit, and the source an error names.
///
/// Ethereum: 64 hex digits with an optional `0x`, or 32 raw bytes.
/// Solana: base58 of a 32-byte seed or of a 64-byte keypair (seed || public key), the Solana CLI
/// JSON array of 64 numbers, or 32/64 raw bytes. A keypair's public half must match its seed.
/// Text formats may be surrounded by ASCII whitespace. Every buffer that held key bytes is wiped.
public struct KeyFileReader: Sendable {
    /// Key files larger than this are refused before parsing (no key format comes close).
    public static let maximumSize = KeyFile.maximumFileBytes

    /// Where relative paths and `-` are resolved.
    public let context: Context

    /// A reader resolving paths and standard input through `context`.
    public init(context: Context) { self.context = context }

    /// The key of `type` in the file at `path` (`-` for standard input), in the format its contents
    /// have (``KeyFile/format(of:type:)``: raw bytes, one text key, or a Solana keypair JSON).
    ///
    /// - Throws: ``CLIError`` `dataError` (65) for malformed content or an invalid key, `ioError`
    ///   (74) when the file cannot be read. Messages name the file, never its content.
    public func key(path: String, type: KeyType) throws -> ParsedKey {
        try key(path: path) { KeyFile.format(of: $0, type: type) }
    }

    /// The key in the file at `path` (`-` for standard input) written as `format`.
    ///
    /// - Throws: the errors of ``key(path:type:)``.
    public func key(path: String, format: KeyFile.Format) throws -> ParsedKey {
        try key(path: path) { _ in format }
    }

    private func key(path: String, format: (SecretBytes) -> KeyFile.Format) throws -> ParsedKey {
        let contents = try read(path: path)
        do throws(KeyFormatError) {
            return try KeyFile.parse(contents, format: format(contents))
        } catch {
            throw Self.cliError(error, source: Self.sourceName(path))
        }
    }

    /// `error` as the CLI reports it, after the name of its source and never with the content: exit 74
    /// for a file that cannot be read, 1 for a keystore's password, 65 for anything else.
    static func cliError(_ error: KeyFormatError, source: String) -> CLIError {
        let message = "\(source): \(error.reason)"
        switch error.errorClass {
        case .io: return CLIError.ioError(message)
        case .decryption: return CLIError(.failure, message, underlying: error)
        default: return CLIError.dataError(message)
        }
    }

    /// The bytes of the file, or of standard input for `-`, at most ``maximumSize``.
    public func read(path: String) throws -> SecretBytes {
        let source = Self.sourceName(path)
        var bytes: [UInt8]
        do {
            if path == "-" {
                let errors = context.standardError
                bytes = try context.standardInput.readSecret(limit: Self.maximumSize) { errors.write($0) }
            } else {
                bytes = try Self.readFile(context.fileURL(path).path, source: source)
            }
        } catch is InputTooLarge {
            throw CLIError.dataError("\(source): too large for a key file (more than \(Self.maximumSize) bytes)")
        }
        defer { SecretBytes.wipe(&bytes) }
        if bytes.isEmpty { throw CLIError.dataError("\(source): empty, expected a private key") }
        return SecretBytes(bytes)
    }

    /// `key file F`, or `standard input` for `-`.
    static func sourceName(_ path: String) -> String { path == "-" ? "standard input" : "key file \(path)" }

    private static func readFile(_ path: String, source: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let reason = String(cString: strerror(code))
            throw CLIError.ioError("\(source): cannot open: \(reason)")
        }
        defer { close(descriptor) }
        var info = stat()
        if fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            throw CLIError.ioError("\(source): is a directory")
        }
        return try BoundedReader.read(descriptor: descriptor, limit: maximumSize, name: source)
    }
}
