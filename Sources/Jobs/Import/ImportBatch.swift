import KeyFormats

/// A chunk of consecutive input rows imported together, and the fingerprints it holds in the
/// duplicate window while it is in flight.
struct ImportBatch: Sendable {
    /// 0, 1, 2, ... in input order: outputs are written in this order.
    let index: Int
    /// The rows, in input order.
    let rows: [ImportRow]
    /// The fingerprints of the rows to send (first occurrences), removed from the window when the batch
    /// is settled.
    let fingerprints: [SecretFingerprint]
}
