import KeyFormats

/// One input row on its way through the import: its source, its wallet reference, and either the
/// validated secret to send or why it is rejected. Lives only while its batch is in flight.
struct ImportRow: Sendable {
    /// The data row number (CSV) or the file name (directories).
    let source: String
    /// The wallet reference: the row's, else `<prefix>-<row>` (CSV) or the file name (directories).
    let reference: String
    /// The user whose account receives the key (per-user mode); nil otherwise.
    var subject: String? = nil
    /// The secret to import; nil for a rejected row.
    let secret: ValidatedSecret?
    /// Why the row is rejected; nil for a row to import.
    let reject: ImportReject?
}

/// A rejects-file row's reason and class (`source,reason,error_class`); never any key material.
struct ImportReject: Sendable, Equatable {
    /// The code (`wrongLength`, `duplicateKey`, ...), a colon, then the explanation.
    let reason: String
    /// `validation`, `format`, `decryption`, `mismatch`, `duplicate`, `io` or `service`.
    let errorClass: String

    /// A later row with the key of `first`, caught in the window of batches in flight.
    static func duplicate(of first: String) -> ImportReject {
        ImportReject(reason: "duplicateKey: the same key as \(first)", errorClass: "duplicate")
    }

    /// A per-user row without a subject: it names the file and the row (never the key).
    static func missingSubject(source: String, file: String) -> ImportReject {
        ImportReject(
            reason:
                "missingSubject: row \(source) of \(file) has no subject (per-user mode: user_issuer is set, "
                + "so every row needs the subject whose account receives its key)",
            errorClass: "validation")
    }
}

/// What became of one row.
enum ImportRowOutcome: Sendable {
    /// Imported now, or by an earlier run of the same import (same address and reference).
    case imported(ImportedWallet)
    /// Written to the rejects file.
    case rejected(ImportReject)
}

/// The columns of an output row that come from the core's wallet.
struct ImportedWallet: Sendable, Equatable {
    let id: String
    let type: String
    let address: String
    let keyOrigin: String
}
