import KeyFormats

/// Forms batches in input order and decides which row of a repeated key is imported.
///
/// **First row wins, whatever the concurrency.** Batches are formed one after another, in input order,
/// by this single batcher. A row whose key is already in the *window* (the keys of batches formed but
/// not yet settled, including earlier rows of its own batch) is rejected as a duplicate of the row that
/// holds it, which is earlier by construction. A key leaves the window only when its batch is settled:
/// by then the core has committed the earlier row (or refused it), so a later row with that key is sent
/// and the core answers that the address is already a wallet (another reference: rejected as a
/// duplicate). A later row is therefore never sent before the earlier one is committed, and the earlier
/// one is never rejected because of it.
///
/// An earlier row rejected for another reason (its batch gave up on it, or the core refused it) does
/// not hold its key: a later copy of that key may then be imported. Rows rejected before sending
/// (validation, expected address) have no key in the window at all.
///
/// Memory: one 32-byte fingerprint and the source name per key in flight, never a key; the
/// fingerprints are keyed BLAKE2b-256 under a per-run random key (``SecretFingerprinter``).
struct ImportBatcher {
    /// References of CSV rows without one: `<prefix>-<row>`.
    let referencePrefix: String
    /// Per-user mode: a row without a subject is rejected (and holds no key in the window).
    let requiresSubject: Bool
    private let fingerprinter = SecretFingerprinter()
    /// The first source of every key of the batches in flight.
    private var window: [SecretFingerprint: String] = [:]
    /// The index of the next batch.
    private(set) var nextIndex = 0

    init(referencePrefix: String, requiresSubject: Bool = false) {
        self.referencePrefix = referencePrefix
        self.requiresSubject = requiresSubject
    }

    /// The number of keys in the window.
    var windowCount: Int { window.count }

    /// The next batch of `records` (consecutive input records), with duplicates of keys in flight
    /// rejected.
    mutating func form(_ records: [SecretRecord]) -> ImportBatch {
        var rows: [ImportRow] = []
        rows.reserveCapacity(records.count)
        var fingerprints: [SecretFingerprint] = []
        fingerprints.reserveCapacity(records.count)
        for record in records {
            let reference =
                record.reference.flatMap { $0.isEmpty ? nil : $0 } ?? "\(referencePrefix)-\(record.source)"
            switch record.result {
            case .success where requiresSubject && record.subject == nil:
                rows.append(
                    ImportRow(
                        source: record.source, reference: reference, secret: nil,
                        reject: .missingSubject(source: record.source, file: record.file)))
            case .success(let secret):
                let fingerprint = fingerprinter.fingerprint(secret)
                if let first = window[fingerprint] {
                    rows.append(
                        ImportRow(
                            source: record.source, reference: reference, secret: nil,
                            reject: .duplicate(of: first)))
                } else {
                    window[fingerprint] = record.source
                    fingerprints.append(fingerprint)
                    rows.append(
                        ImportRow(
                            source: record.source, reference: reference, subject: record.subject, secret: secret,
                            reject: nil))
                }
            case .failure(let error):
                rows.append(
                    ImportRow(
                        source: record.source, reference: reference, secret: nil,
                        reject: ImportReject(
                            reason: "\(error.code.rawValue): \(error.reason)", errorClass: error.errorClass.rawValue)))
            }
        }
        defer { nextIndex += 1 }
        return ImportBatch(index: nextIndex, rows: rows, fingerprints: fingerprints)
    }

    /// `batch` is settled: its keys leave the window (the core now decides their later copies).
    mutating func settled(_ batch: ImportBatch) {
        for fingerprint in batch.fingerprints { window[fingerprint] = nil }
    }
}
