import TextFormats

/// Why a key, a record or an input file was refused: what is wrong and where, never the key.
///
/// `reason` is one sentence about the input (lengths, positions, addresses, parameter values) and
/// never contains key or password bytes; `errorClass` groups reasons for a rejects file with the
/// columns `source,reason,error_class`. Two errors are equal when their codes are
/// (STYLE.md "Types and errors").
public struct KeyFormatError: CodedError, Sendable {
    /// The column `error_class` of a rejects file.
    public enum ErrorClass: String, Sendable, Hashable, CaseIterable {
        /// The key or a cell is malformed or out of range.
        case validation
        /// The container (CSV structure, keystore JSON, keypair JSON) is malformed or unsupported.
        case format
        /// A keystore could not be decrypted: wrong password, corrupted file, no password, cost too high.
        case decryption
        /// The key is valid but its address is not the one the input promised.
        case mismatch
        /// The same key appeared earlier in the run.
        case duplicate
        /// A file or directory could not be read.
        case io
    }

    /// The precise problem, for callers that branch on it.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The key cell or file is empty (or only whitespace).
        case emptyKey
        /// The key has the wrong number of characters or bytes.
        case wrongLength
        /// An Ethereum text key has a character that is not a hex digit.
        case notHex
        /// A Solana text key has a character outside the base58 alphabet.
        case notBase58
        /// base58 text of exactly 32 or 64 characters (ambiguous with raw bytes or hex).
        case ambiguousBase58
        /// A raw key file of key length that is printable text (a truncated text key).
        case notRawBytes
        /// The secp256k1 scalar is zero.
        case zeroKey
        /// The secp256k1 scalar is not below the group order n.
        case keyOutOfRange
        /// The key is not valid for its curve for another reason.
        case invalidKey
        /// A 64-byte Solana keypair whose public half does not match its seed.
        case keypairMismatch
        /// The reference is longer than 128 UTF-8 bytes.
        case referenceTooLong
        /// The reference holds a NUL byte.
        case invalidReference
        /// The type cell is not ethereum/evm/solana, or there is no type at all.
        case unknownType
        /// The expected address is not an address of the key's type.
        case invalidExpectedAddress
        /// A recovery phrase has a word outside the BIP-39 English list (reported by position only).
        case unknownWord
        /// A recovery phrase has a number of words BIP-39 does not define (12, 15, 18, 21 or 24).
        case wrongWordCount
        /// A recovery phrase's checksum (the last word's last bits) does not match its words.
        case mnemonicChecksum
        /// A passphrase is not valid UTF-8.
        case invalidPassphrase
        /// A derivation path, template or layout name cannot be read, or does not fit the key type.
        case invalidPath
        /// The `count` or `indices` cell of a phrase row cannot be read or is out of range.
        case invalidIndices
        /// The CSV header has no private_key column (or a map lacks a column).
        case missingColumn
        /// The CSV header names a known column twice.
        case duplicateColumn
        /// The CSV file is empty.
        case missingHeader
        /// A CSV row's field count differs from the header's.
        case raggedRow
        /// A quoted CSV field is never closed (ends the file).
        case unterminatedQuote
        /// Characters follow a closing quote in a CSV field.
        case malformedQuote
        /// A CSV cell is longer than the reader keeps.
        case fieldTooLong
        /// A keystore, keypair or map file is not the JSON it should be.
        case malformedJSON
        /// A keystore version, cipher, KDF or PRF this reader does not support.
        case unsupportedKeystore
        /// A keystore field is missing or out of range.
        case invalidKeystoreParameter
        /// The keystore MAC does not match: wrong password or corrupted file.
        case wrongPassword
        /// No password: the variable is unset or the map has no entry.
        case missingPassword
        /// The keystore's scrypt parameters need more memory than allowed.
        case scryptMemoryLimit
        /// The keystore's KDF asks for more work than the cap (scrypt n·r·p, PBKDF2 rounds).
        case kdfCostLimit
        /// The keystore's address field is not the decrypted key's address.
        case addressMismatch
        /// The key's address is not the expected_address given.
        case expectedAddressMismatch
        /// The same key appeared earlier in the run.
        case duplicateKey
        /// A file or directory does not exist.
        case fileNotFound
        /// A file or directory could not be opened or read.
        case readFailed
        /// A file is larger than its format allows.
        case fileTooLarge
        /// A path names a directory where a file was expected.
        case notAFile

        /// The rejects-file class of this code.
        public var errorClass: ErrorClass {
            switch self {
            case .emptyKey, .wrongLength, .notHex, .notBase58, .ambiguousBase58, .notRawBytes, .zeroKey,
                .keyOutOfRange, .invalidKey, .keypairMismatch, .referenceTooLong, .invalidReference, .unknownType,
                .invalidExpectedAddress, .unknownWord, .wrongWordCount, .mnemonicChecksum, .invalidPassphrase,
                .invalidPath, .invalidIndices:
                .validation
            case .missingColumn, .duplicateColumn, .missingHeader, .raggedRow, .unterminatedQuote, .malformedQuote,
                .fieldTooLong, .malformedJSON, .unsupportedKeystore, .invalidKeystoreParameter:
                .format
            case .wrongPassword, .missingPassword, .scryptMemoryLimit, .kdfCostLimit: .decryption
            case .addressMismatch, .expectedAddressMismatch: .mismatch
            case .duplicateKey: .duplicate
            case .fileNotFound, .readFailed, .fileTooLarge, .notAFile: .io
            }
        }
    }

    /// The precise problem.
    public let code: Code
    /// One sentence saying what is wrong, without the source and without any secret.
    public let reason: String
    /// The record or file: a data row number (CSV) or a file name; nil for a problem with no record.
    public let source: String?
    /// The file the problem is in, when known.
    public let file: String?
    /// The 1-based line in `file` where the record starts (CSV), when known.
    public let line: Int?

    /// An error; `reason` must not contain secrets.
    public init(_ code: Code, _ reason: String, source: String? = nil, file: String? = nil, line: Int? = nil) {
        self.code = code
        self.reason = reason
        self.source = source
        self.file = file
        self.line = line
    }

    /// The rejects-file class.
    public var errorClass: ErrorClass { code.errorClass }

    /// The same error located at `source` in `file` at `line` (keeps values already set).
    public func located(source: String? = nil, file: String? = nil, line: Int? = nil) -> KeyFormatError {
        KeyFormatError(
            code, reason, source: self.source ?? source, file: self.file ?? file, line: self.line ?? line)
    }

    /// The reason with its place, as ``description`` shows it.
    public var message: String { description }

    /// `file:line: reason` (or `source: reason`), the shape of a compiler diagnostic.
    public var description: String {
        var location: [String] = []
        if let file { location.append(file) }
        if let line { location.append(String(line)) }
        if location.isEmpty, let source { location.append(source) }
        let prefix = location.isEmpty ? "" : location.joined(separator: ":") + ": "
        return prefix + reason
    }
}
