import Foundation
import WalletCrypto

/// Reads a private key from a key file (or standard input for `-`), accepting the formats people
/// actually have on disk, and says precisely what is wrong with a bad file without showing any of
/// its content.
///
/// Ethereum: 64 hex digits with an optional `0x`, or 32 raw bytes.
/// Solana: base58 of a 32-byte seed or of a 64-byte keypair (seed || public key), the Solana CLI
/// JSON array of 64 numbers, or 32/64 raw bytes. A keypair's public half must match its seed.
/// Text formats may be surrounded by ASCII whitespace. Every buffer that held key bytes is wiped.
public struct KeyFileReader: Sendable {
    /// Key files larger than this are refused before parsing (no key format comes close).
    public static let maximumSize = 4096

    /// Where relative paths and `-` are resolved.
    public let context: Context

    /// A reader resolving paths and standard input through `context`.
    public init(context: Context) { self.context = context }

    /// The secp256k1 key in the file at `path` (`-` for standard input).
    ///
    /// - Throws: ``CLIError`` `dataError` (65) for malformed content or an invalid scalar, `ioError`
    ///   (74) when the file cannot be read. Messages name the file, never its content.
    public func ethereumKey(path: String) throws -> Secp256k1.PrivateKey {
        let source = Self.sourceName(path)
        let contents = try read(path: path)
        let secret = try Self.ethereumSecret(contents, source: source)
        do {
            return try Secp256k1.PrivateKey(secret)
        } catch {
            switch error.code {
            case .privateKeyIsZero:
                throw CLIError.dataError("\(source): not a valid secp256k1 private key: it is zero")
            case .privateKeyOutOfRange:
                throw CLIError.dataError(
                    "\(source): not a valid secp256k1 private key: it is not below the curve order")
            default:
                throw CLIError.dataError("\(source): not a valid secp256k1 private key")
            }
        }
    }

    /// The Ed25519 key in the file at `path` (`-` for standard input).
    ///
    /// - Throws: ``CLIError`` `dataError` (65) for malformed content or a keypair whose halves do
    ///   not match, `ioError` (74) when the file cannot be read.
    public func solanaKey(path: String) throws -> Ed25519.PrivateKey {
        let source = Self.sourceName(path)
        let contents = try read(path: path)
        let material = try Self.solanaSecret(contents, source: source)
        do {
            return material.count == 32
                ? try Ed25519.PrivateKey(seed: material) : try Ed25519.PrivateKey(keypair: material)
        } catch {
            if error.code == .keypairMismatch {
                throw CLIError.dataError(
                    "\(source): the public half of the 64-byte keypair does not match the key derived from its seed")
            }
            throw CLIError.dataError("\(source): not a valid Ed25519 key")
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
