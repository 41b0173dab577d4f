public import Foundation
import WalletCrypto

/// An Ethereum keystore file, parsed but not decrypted: Web3 Secret Storage version 3 (AES-128-CTR)
/// or geth's version 1 (AES-128-CBC), with scrypt or PBKDF2-HMAC-SHA256.
///
/// See <https://ethereum.org/en/developers/docs/data-structures-and-encoding/web3-secret-storage/> and
/// go-ethereum `accounts/keystore`. Field names are matched in any case (`crypto` or `Crypto`), as
/// geth's JSON decoder does. Decryption is ``decrypt(password:maxScryptMemory:workspace:)`` or, in bulk,
/// ``KeystoreDecryptionPool``.
public struct EncryptedKeystore: Sendable {
    /// The file layout.
    public enum Version: Int, Sendable {
        /// geth version 1: AES-128-CBC with key keccak256(DK[0..<16])[0..<16].
        case v1 = 1
        /// Web3 Secret Storage version 3: AES-128-CTR with key DK[0..<16].
        case v3 = 3
    }

    /// The key derivation function and its cost.
    public enum KDF: Sendable, Equatable {
        /// scrypt (RFC 7914) with cost `n`, block size `r`, parallelism `p`.
        case scrypt(n: Int, r: Int, p: Int)
        /// PBKDF2 (RFC 8018) with HMAC-SHA256 and `iterations` rounds.
        case pbkdf2(iterations: Int)
    }

    /// Keystore files larger than this are refused before parsing (real ones are under 1 KiB).
    public static let maximumFileBytes = 64 * 1024
    /// The deepest nesting of a keystore's JSON; real ones have three levels.
    public static let maximumDepth = 8
    /// The most PBKDF2-HMAC-SHA256 rounds accepted: 8 times the 262,144 of the usual writers, so a hostile
    /// file cannot pin a core (docs/key-formats.md "Cost caps").
    public static let maximumPBKDF2Iterations = 1 << 21
    /// The most scrypt work accepted, n·r·p (ROMix does 2·n·r·p salsa20/8 block mixes): four times geth's
    /// standard n = 2^18, r = 8, p = 1, the strongest common setting n = 2^20, r = 8 included, so a file
    /// cannot make the import spin for minutes with a small n and a huge p that the memory bound alone
    /// lets through (docs/key-formats.md "Cost caps").
    public static let maximumScryptWork = 1 << 23

    /// The layout.
    public let version: Version
    /// The KDF and its parameters.
    public let kdf: KDF
    /// The `address` field (20 bytes), an unauthenticated hint checked against the decrypted key.
    public let addressHint: [UInt8]?
    let salt: [UInt8]
    let derivedKeyLength: Int
    let iv: [UInt8]
    let ciphertext: [UInt8]
    let mac: [UInt8]

    /// The memory the KDF needs: 128 * r * (n + p) bytes for scrypt, 0 for PBKDF2.
    public var kdfMemory: Int {
        switch kdf {
        case .scrypt(let n, let r, let p): Scrypt.memoryRequired(n: n, r: r, p: p) ?? Int.max
        case .pbkdf2: 0
        }
    }

    /// Reads and parses the keystore file at `path` (at most ``maximumFileBytes``).
    ///
    /// - Throws: `KeyFormatError`: class `io` when unreadable or too large; class `format`
    ///   (`.malformedJSON`, `.unsupportedKeystore`, `.invalidKeystoreParameter`) otherwise.
    public init(contentsOf path: String) throws(KeyFormatError) {
        let bytes = try FileInput(path: path).readAll(limit: Self.maximumFileBytes)
        do {
            try self.init(json: Data(bytes.unsafeCopy()))
        } catch {
            throw error.located(file: path)
        }
    }

    /// Parses keystore JSON.
    ///
    /// - Throws: `KeyFormatError` `.malformedJSON`, `.unsupportedKeystore` (version, cipher, KDF or
    ///   PRF not supported) or `.invalidKeystoreParameter` (a missing or out-of-range field).
    public init(json: Data) throws(KeyFormatError) {
        // JSONSerialization keeps one of two members of the same name and has no depth bound of ours: the
        // strict parser first, which refuses both (and invalid UTF-8) at a byte offset.
        do {
            _ = try JSONValue.parse(json, maxDepth: Self.maximumDepth)
        } catch {
            throw KeyFormatError(.malformedJSON, "not a keystore: \(error)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: json), let root = object as? [String: Any] else {
            throw KeyFormatError(.malformedJSON, "not a keystore: the file is not a JSON object")
        }
        let top = JSONFields(root, path: "")
        switch top.integer("version") {
        case 3: version = .v3
        case 1: version = .v1
        case let other:
            throw KeyFormatError(
                .unsupportedKeystore,
                "unsupported keystore version \(other.map(String.init) ?? "(missing)"); expected 3 (or geth's 1)")
        }
        guard let crypto = top.object("crypto") else {
            throw KeyFormatError(.invalidKeystoreParameter, "the keystore has no crypto object")
        }
        let cipher = try crypto.string("cipher")
        let expectedCipher = version == .v3 ? "aes-128-ctr" : "aes-128-cbc"
        guard cipher.lowercased() == expectedCipher else {
            throw KeyFormatError(
                .unsupportedKeystore,
                "unsupported cipher \(cipher) for a version \(version.rawValue) keystore; expected \(expectedCipher)")
        }
        guard let params = crypto.object("kdfparams") else {
            throw KeyFormatError(.invalidKeystoreParameter, "the keystore has no crypto.kdfparams object")
        }
        switch try crypto.string("kdf").lowercased() {
        case "scrypt":
            let n = try params.requiredInteger("n")
            let r = try params.requiredInteger("r")
            let p = try params.requiredInteger("p")
            guard n > 1, n & (n - 1) == 0, r >= 1, p >= 1, r.multipliedReportingOverflow(by: p).partialValue < 1 << 30
            else {
                throw KeyFormatError(
                    .invalidKeystoreParameter,
                    "scrypt parameters n = \(n), r = \(r), p = \(p) are invalid (n a power of two > 1, r * p < 2^30)")
            }
            let (nr, o1) = n.multipliedReportingOverflow(by: r)
            let (work, o2) = nr.multipliedReportingOverflow(by: p)
            guard !o1, !o2, work <= Self.maximumScryptWork else {
                throw KeyFormatError(
                    .kdfCostLimit,
                    "scrypt n = \(n), r = \(r), p = \(p) asks for n·r·p = \(o1 || o2 ? "more than 2^63" : String(work)) "
                        + "units of work, above the cap of \(Self.maximumScryptWork); refused before any work")
            }
            kdf = .scrypt(n: n, r: r, p: p)
        case "pbkdf2":
            let prf = try params.string("prf")
            guard prf.lowercased() == "hmac-sha256" else {
                throw KeyFormatError(.unsupportedKeystore, "unsupported PBKDF2 prf \(prf); expected hmac-sha256")
            }
            let c = try params.requiredInteger("c")
            guard c >= 1 else {
                throw KeyFormatError(.invalidKeystoreParameter, "PBKDF2 iteration count \(c) is below 1")
            }
            guard c <= Self.maximumPBKDF2Iterations else {
                throw KeyFormatError(
                    .kdfCostLimit,
                    "PBKDF2 iteration count \(c) is above the cap of \(Self.maximumPBKDF2Iterations); refused before any work"
                )
            }
            kdf = .pbkdf2(iterations: c)
        case let other:
            throw KeyFormatError(.unsupportedKeystore, "unsupported kdf \(other); expected scrypt or pbkdf2")
        }
        derivedKeyLength = try params.requiredInteger("dklen")
        guard (32...1024).contains(derivedKeyLength) else {
            throw KeyFormatError(.invalidKeystoreParameter, "dklen \(derivedKeyLength) is outside 32...1024")
        }
        salt = try params.hex("salt")
        guard let cipherParams = crypto.object("cipherparams") else {
            throw KeyFormatError(.invalidKeystoreParameter, "the keystore has no crypto.cipherparams object")
        }
        iv = try cipherParams.hex("iv")
        guard iv.count == 16 else {
            throw KeyFormatError(.invalidKeystoreParameter, "the iv is \(iv.count) bytes; AES needs 16")
        }
        ciphertext = try crypto.hex("ciphertext")
        let validLength =
            version == .v3 ? (1...32).contains(ciphertext.count) : ciphertext.count % 16 == 0 && ciphertext.count <= 48
        guard validLength, !ciphertext.isEmpty else {
            throw KeyFormatError(
                .invalidKeystoreParameter,
                "the ciphertext is \(ciphertext.count) bytes, not an encrypted 32-byte key for version \(version.rawValue)"
            )
        }
        mac = try crypto.hex("mac")
        guard mac.count == 32 else {
            throw KeyFormatError(.invalidKeystoreParameter, "the mac is \(mac.count) bytes; expected 32")
        }
        if let address = top.optionalString("address") {
            guard let bytes = KeyParser.ethereumAddressBytes(address.trimmingASCIIWhitespace()) else {
                throw KeyFormatError(
                    .invalidKeystoreParameter, "the address field is not 40 hex digits (with or without 0x)")
            }
            addressHint = bytes
        } else {
            addressHint = nil
        }
    }
}

/// Case-insensitive access to a JSON object's fields, with errors that name the field.
struct JSONFields {
    let object: [String: Any]
    let path: String

    init(_ object: [String: Any], path: String) {
        self.object = object
        self.path = path
    }

    func value(_ name: String) -> Any? {
        if let exact = object[name] { return exact }
        return object.first { $0.key.lowercased() == name }?.value
    }

    func object(_ name: String) -> JSONFields? {
        (value(name) as? [String: Any]).map { JSONFields($0, path: path + name + ".") }
    }

    /// An integer field, also written as a decimal string ("3").
    func integer(_ name: String) -> Int? {
        let field = value(name)
        // JSON true/false arrive as Bool, which would also cast to NSNumber: refuse them.
        if let field, type(of: field) == Bool.self { return nil }
        switch field {
        case let number as NSNumber:
            let double = number.doubleValue
            return double == double.rounded() && abs(double) < 1e15 ? Int(double) : nil
        case let string as String: return Int(string)
        default: return nil
        }
    }

    func requiredInteger(_ name: String) throws(KeyFormatError) -> Int {
        guard let value = integer(name) else {
            throw KeyFormatError(
                .invalidKeystoreParameter, "the keystore's \(path)\(name) is missing or not an integer")
        }
        return value
    }

    func optionalString(_ name: String) -> String? { value(name) as? String }

    func string(_ name: String) throws(KeyFormatError) -> String {
        guard let value = value(name) as? String else {
            throw KeyFormatError(.invalidKeystoreParameter, "the keystore's \(path)\(name) is missing or not a string")
        }
        return value
    }

    /// A hex string field (optional `0x`).
    func hex(_ name: String) throws(KeyFormatError) -> [UInt8] {
        let text = try string(name)
        guard let bytes = try? Base16.decode(text) else {
            throw KeyFormatError(.invalidKeystoreParameter, "the keystore's \(path)\(name) is not hex")
        }
        return bytes
    }
}
