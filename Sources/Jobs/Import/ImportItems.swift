import Foundation
import KeyFormats
import Playbook
import Runner
import Synchronization
import WalletCrypto

/// The import's input as the engine's items, in input order: a CSV row per item (keyed `row:<n>`), an
/// account of a phrase row per item (keyed `row:<n>:<i>`; a phrase row that is refused is one item keyed
/// `row:<n>`), or a file of a directory per item (keyed by its name).
///
/// Every item has the fields `source` (the data row number or the file name), `reference` and, for a CSV
/// row with one, `subject`; none of them is secret. A CSV row's key is validated as the row is read and
/// rides with the item as its attachment (an ``ImportSecret``, wiped memory), never in a field, so it
/// reaches no checkpoint, event or report. A phrase row is read, checked and derived (its seed once, every
/// account's key) as it is read; its phrase and passphrase are released (wiped) before the next row, and
/// only the derived keys ride with the items. A file is read (and a keystore decrypted) only when its chunk
/// runs, so a resumed run never decrypts a file it finished. Memory: CSV input streams; directories hold
/// their sorted names.
enum ImportItems {
    /// The items of `configuration`'s input, read afresh on every run of the step.
    static func source(_ configuration: ImportKeysAction.Configuration) -> ItemSource {
        ItemSource(count: count(configuration)) { ImportItemIterator(configuration) }
    }

    /// The rows or files of the input, for the progress line's total and ETA (nil when the input cannot be
    /// read: the run then says why when it reads it).
    static func count(_ configuration: ImportKeysAction.Configuration) -> Int? {
        switch configuration.format {
        case .hexCSV, .base58CSV:
            return CSVKeyReader.countDataRows(path: configuration.inputLocation)
        case .mnemonicCSV:
            // The accounts the rows ask for, from their count and indices cells (no phrase is derived).
            guard let reader = try? CSVKeyReader(path: configuration.inputLocation, kind: .phrases) else { return nil }
            var total = 0
            while let row = try? reader.nextPhraseRow() { total += row.recordCount }
            return total
        case .keystoreDirectory, .solanaJSONDirectory, .rawDirectory:
            return try? DirectoryListing(directory: configuration.inputLocation).entries.count
        case .mnemonicDirectory:
            // Every file asks for the same accounts (a file that cannot be read is one refused row).
            guard let files = try? DirectoryListing(directory: configuration.inputLocation).entries.count else {
                return nil
            }
            let settings = configuration.phrases
            let accounts = (try? PhraseRow.accountIndices(count: settings.count, indices: settings.indices).count) ?? 1
            return files * max(1, accounts)
        }
    }

    /// The records of `chunk`'s items in its order: a CSV row's (or a phrase account's) from its attachment,
    /// a file's read or decrypted on `pool` now (each derivation counted as `decrypted` in `context`).
    static func secrets(
        of chunk: [WorkItem], configuration: ImportKeysAction.Configuration, pool: KeystoreDecryptionPool,
        context: ChunkContext
    ) async throws -> [SecretRecord] {
        switch configuration.format {
        case .hexCSV, .base58CSV, .mnemonicCSV, .mnemonicDirectory:
            return chunk.map { item in
                (item.attachment as? ImportSecret)?.record
                    ?? SecretRecord(
                        source: item.fields["source"] ?? item.key, file: configuration.input, reference: nil,
                        result: .failure(KeyFormatError(.emptyKey, "the row's key is not in memory any more")))
            }
        case .solanaJSONDirectory:
            return chunk.map {
                KeyFile.readSecret(
                    path: $0.fields["path"] ?? "", format: .solanaKeypairJSON, reference: $0.fields["reference"])
            }
        case .rawDirectory:
            let type = configuration.type ?? .ethereum
            return chunk.map {
                KeyFile.readSecret(path: $0.fields["path"] ?? "", format: .raw(type), reference: $0.fields["reference"])
            }
        case .keystoreDirectory:
            guard let passwords = configuration.passwords else {
                throw ActionError.permanent("format keystore-dir needs password_env or password_file")
            }
            // Every file of the chunk goes to the pool at once: its slots bound the CPU and memory.
            return try await withThrowingTaskGroup(of: (Int, KeyRecord, Bool).self) { group in
                for (index, item) in chunk.enumerated() {
                    let (path, reference) = (item.fields["path"] ?? "", item.fields["reference"])
                    group.addTask {
                        let (record, derived) = try await pool.decryptFileCountingDerivation(
                            at: path, passwords: passwords, reference: reference)
                        return (index, record, derived)
                    }
                }
                var records = [SecretRecord?](repeating: nil, count: chunk.count)
                var derivations = 0
                for try await (index, record, derived) in group {
                    records[index] = SecretRecord(record)
                    if derived { derivations += 1 }
                }
                context.count(ImportKeysAction.Work.decrypted, derivations)
                return records.map { $0! }
            }
        }
    }
}

/// A CSV row's validated key (or why it is refused), carried as a ``WorkItem`` attachment. A class: the
/// engine copies an item several times on its way to the chunk, and each copy then retains one reference
/// rather than every string of the record.
final class ImportSecret: Sendable {
    let record: SecretRecord

    init(record: SecretRecord) { self.record = record }
}

private final class ImportItemIterator: SynchronousItemIterator {
    private let configuration: ImportKeysAction.Configuration
    private enum Reader {
        case csv(CSVKeyReader)
        case phrases(CSVKeyReader)
        case phraseFiles([DirectoryListing.Entry], next: Int)
        case files([DirectoryListing.Entry], next: Int)
    }
    /// The records of the phrase row being handed out, in index order.
    private var pending: [SecretRecord] = []
    private var nextPending = 0
    private var reader: Reader?

    init(_ configuration: ImportKeysAction.Configuration) { self.configuration = configuration }

    private func open() throws -> Reader {
        if let reader { return reader }
        let (input, location) = (configuration.input, configuration.inputLocation)
        let opened: Reader
        do {
            switch configuration.format {
            case .hexCSV, .base58CSV, .mnemonicCSV:
                let phrases = configuration.format == .mnemonicCSV
                let csv = try CSVKeyReader(
                    path: location,
                    defaultType: phrases
                        ? configuration.type
                        : configuration.type ?? (configuration.format == .hexCSV ? .ethereum : .solana),
                    kind: phrases ? .phrases : .keys, columnNames: configuration.columnNames)
                if configuration.perUser != nil && !csv.header.contains(CSVKeyReader.Column.subject.rawValue) {
                    throw JobsError(
                        .invalidInput,
                        "input \(input): per-user mode (user_issuer) needs a subject column in the header "
                            + "(the user whose account receives each row's key); nothing was imported")
                }
                opened = phrases ? .phrases(csv) : .csv(csv)
            case .keystoreDirectory where configuration.passwords == nil:
                throw JobsError(.invalidInput, "format keystore-dir needs password_env or password_file")
            case .rawDirectory where configuration.type == nil:
                throw JobsError(.invalidInput, "format raw-dir needs type (ethereum or solana)")
            case .keystoreDirectory, .solanaJSONDirectory, .rawDirectory:
                opened = .files(try DirectoryListing(directory: location).entries, next: 0)
            case .mnemonicDirectory:
                opened = .phraseFiles(try DirectoryListing(directory: location).entries, next: 0)
            }
        } catch let error as KeyFormatError {
            throw JobsError.input(input, error)
        }
        reader = opened
        return opened
    }

    /// Rows a resumed run finished: their keys (`row:<n>`, the file name) without reading or validating a key
    /// (a phrase's accounts are read whole).
    func skip(upTo limit: Int, keys: inout [String]) async throws {
        switch try open() {
        case .csv(let csv):
            do {
                var added = 0
                while added < limit, let row = try csv.skipRow() {
                    keys.append("row:\(row)")
                    added += 1
                }
            } catch {
                throw JobsError.input(configuration.input, error)
            }
        case .files(let entries, let next):
            let end = min(entries.count, next + limit)
            for entry in entries[next..<end] { keys.append(DirectoryListing.fileName(of: entry.path)) }
            reader = .files(entries, next: end)
        case .phrases, .phraseFiles:
            // A phrase's accounts are keyed by what it derives: read them whole.
            var items: [WorkItem] = []
            try await next(upTo: limit, into: &items)
            keys.append(contentsOf: items.map(\.key))
        }
    }

    func nextItem() throws -> WorkItem? {
        switch try open() {
        case .csv(let csv):
            let record: SecretRecord?
            do {
                record = try csv.nextSecret()
            } catch {
                throw JobsError.input(configuration.input, error)
            }
            guard let record else { return nil }
            return item(record)
        case .phrases, .phraseFiles:
            while nextPending == pending.count {
                guard try derivePhrases() else { return nil }
            }
            let record = pending[nextPending]
            nextPending += 1
            if nextPending == pending.count {
                pending.removeAll()
                nextPending = 0
            }
            return item(record)
        case .files(let entries, let next):
            guard next < entries.count else { return nil }
            reader = .files(entries, next: next + 1)
            let entry = entries[next]
            let name = DirectoryListing.fileName(of: entry.path)
            return WorkItem(
                key: name,
                fields: [
                    "source": name, "path": entry.path,
                    "reference": entry.reference,
                ])
        }
    }

    /// Phrase rows read ahead and derived at once, one at a time per core: a phrase's PBKDF2 and path
    /// steps dominate a phrase import's CPU, and on one thread they would bound it whatever `parallel`
    /// says. A few rows per core keep the cores busy while the phrases held at once stay few (each row's
    /// phrase is wiped once its accounts are derived).
    static let phrasesAhead = 4 * max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Reads up to ``phrasesAhead`` phrase rows and derives their records on every core, in row order,
    /// into `pending`; false at the end of the input.
    private func derivePhrases() throws -> Bool {
        var read: [PhraseRow] = []
        while read.count < Self.phrasesAhead, let row = try nextPhrase() { read.append(row) }
        guard !read.isEmpty else { return false }
        let rows = read
        let (type, prefix, gapLimit) = (configuration.type, configuration.referencePrefix, configuration.gapLimit)
        let derived = Mutex([[SecretRecord]](repeating: [], count: rows.count))
        DispatchQueue.concurrentPerform(iterations: rows.count) { index in
            let records = rows[index].records(defaultType: type, referencePrefix: prefix, gapLimit: gapLimit)
            derived.withLock { $0[index] = records }
        }
        pending = derived.withLock { records in records.flatMap { $0 } }
        nextPending = 0
        return true
    }

    /// The next phrase of a phrase CSV or directory; nil at the end.
    private func nextPhrase() throws -> PhraseRow? {
        switch reader {
        case .phrases(let csv):
            do {
                return try csv.nextPhraseRow()
            } catch {
                throw JobsError(.invalidInput, "input \(configuration.input): \(error)")
            }
        case .phraseFiles(let entries, let next):
            guard next < entries.count else { return nil }
            reader = .phraseFiles(entries, next: next + 1)
            let settings = configuration.phrases
            var passphrase: SecretBytes?
            var problem: KeyFormatError?
            if let passwords = configuration.passwords {
                do {
                    passphrase = try passwords.password(for: entries[next].name)
                } catch {
                    problem = error
                }
            }
            let row = PhraseRow(
                phraseFile: entries[next].path, passphrase: passphrase, derivationPath: settings.path,
                count: settings.count, indices: settings.indices, type: nil,
                fileReference: entries[next].reference)
            return problem.map { row.refused($0) } ?? row
        default:
            return nil
        }
    }

    /// The item of a CSV row's (or a phrase account's) record, its key as the attachment.
    private func item(_ record: SecretRecord) -> WorkItem {
        let reference =
            record.reference.flatMap { $0.isEmpty ? nil : $0 }
            ?? "\(configuration.referencePrefix)-\(record.source)"
        var fields = ["source": record.source, "reference": reference]
        if let subject = record.subject { fields["subject"] = subject }
        var item = WorkItem(key: "row:\(record.source)", fields: fields)
        item.attachment = ImportSecret(record: record)
        return item
    }
}

/// The keys admitted and not yet answered by the core, by keyed fingerprint (never a key), with the
/// source of the row that holds each: the import's duplicate window.
final class ImportWindow: Sendable {
    private struct State {
        /// Confined to the lock, like the fingerprints it makes.
        let fingerprinter = SecretFingerprinter()
        var held: [SecretFingerprint: String] = [:]
    }
    private let state = Mutex(State())

    /// Holds the fingerprint of `secret` (keyed under this run's random key) for `source`: nil when no
    /// earlier row holds it (the fingerprint to release is returned), else that row's source.
    func claim(_ secret: ValidatedSecret, source: String) -> (fingerprint: SecretFingerprint, heldBy: String?) {
        state.withLock { state in
            let fingerprint = state.fingerprinter.fingerprint(secret)
            if let first = state.held[fingerprint] { return (fingerprint, first) }
            state.held[fingerprint] = source
            return (fingerprint, nil)
        }
    }

    /// Lets go of `fingerprints` (their chunk was answered: the core decides their later copies).
    func release(_ fingerprints: [SecretFingerprint]) {
        guard !fingerprints.isEmpty else { return }
        state.withLock { state in for fingerprint in fingerprints { state.held[fingerprint] = nil } }
    }

    /// Keys held now (tests: the window empties as chunks are answered).
    var count: Int { state.withLock { $0.held.count } }
}

/// A value made once on first use and shared by a step's chunks (the import's transport, the
/// reconcile's listing of the core's wallets); a failure to make it is thrown to every caller that
/// asked, and the next call tries again.
final class MadeOnce<Value: Sendable>: Sendable {
    private let make: @Sendable () async throws -> Value
    private let made = Mutex<Task<Value, any Error>?>(nil)

    init(_ make: @escaping @Sendable () async throws -> Value) { self.make = make }

    /// The value, made by the first call.
    func get() async throws -> Value {
        let task = made.withLock { made -> Task<Value, any Error> in
            if let made { return made }
            let task = Task { try await make() }
            made = task
            return task
        }
        do {
            return try await task.value
        } catch {
            made.withLock { if $0 == task { $0 = nil } }
            throw error
        }
    }
}
