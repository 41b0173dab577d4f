import KeyFormats

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
