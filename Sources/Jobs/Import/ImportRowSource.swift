import Foundation
import KeyFormats

/// Reads an import's input in order, a chunk at a time, validating each record without deriving its
/// address (except where the format must: keypair files, keystores, `expected_address`).
///
/// Memory: CSV input streams (a fixed buffer, whatever the file's size); directory formats hold the
/// sorted file names (about 100 bytes per file: the order must be the names' order) and read the
/// files a chunk at a time; keystores are decrypted on the bounded ``KeystoreDecryptionPool`` through
/// a ``KeystoreReadAhead``, which keeps twice the pool's slots of files decrypting beyond the chunk
/// handed out, so every core stays on scrypt while the pipeline forms and sends a batch, whatever the
/// batch size. Confined to the task that runs the import.
final class ImportRowSource {
    enum Kind {
        case csv(CSVKeyReader)
        case files([DirectoryListing.Entry], KeyFile.Format)
        case keystores(KeystoreReadAhead)
    }

    private let kind: Kind
    private var nextFile = 0

    /// Opens the input of `configuration`.
    ///
    /// - Throws: `KeyFormatError` when the input cannot be opened (a file-level problem), `JobsError`
    ///   when the format needs a setting that is missing.
    init(_ configuration: ImportKeysAction.Configuration) throws {
        switch configuration.format {
        case .hexCSV, .base58CSV:
            kind = .csv(
                try CSVKeyReader(
                    path: configuration.input,
                    defaultType: configuration.type ?? (configuration.format == .hexCSV ? .ethereum : .solana)))
        case .solanaJSONDirectory:
            kind = .files(try DirectoryListing(directory: configuration.input).entries, .solanaKeypairJSON)
        case .rawDirectory:
            guard let type = configuration.type else {
                throw JobsError(.invalidInput, "format raw-dir needs type (ethereum or solana)")
            }
            kind = .files(try DirectoryListing(directory: configuration.input).entries, .raw(type))
        case .keystoreDirectory:
            guard let passwords = configuration.passwords else {
                throw JobsError(.invalidInput, "format keystore-dir needs password_env or password_file")
            }
            let paths = try DirectoryListing(directory: configuration.input).entries.map(\.path)
            kind = .keystores(
                KeystoreReadAhead(paths: paths, passwords: passwords, pool: KeystoreDecryptionPool()))
        }
    }

    /// Whether the input names a subject per row (a CSV header with `subject`; directories never do).
    var hasSubjectColumn: Bool {
        guard case .csv(let reader) = kind else { return false }
        return reader.header.contains(CSVKeyReader.Column.subject.rawValue)
    }

    /// Up to `count` next records in input order; empty at the end.
    ///
    /// - Throws: `KeyFormatError` for a problem that ends the input (a read error, an unclosed quote).
    func next(_ count: Int) async throws -> [SecretRecord] {
        switch kind {
        case .csv(let reader):
            var records: [SecretRecord] = []
            records.reserveCapacity(count)
            while records.count < count, let record = try reader.nextSecret() { records.append(record) }
            return records
        case .files(let entries, let format):
            let end = min(entries.count, nextFile + count)
            defer { nextFile = end }
            return entries[nextFile..<end].map { KeyFile.readSecret(path: $0.path, format: format) }
        case .keystores(let reader):
            return try await reader.next(count).map(SecretRecord.init)
        }
    }
}
