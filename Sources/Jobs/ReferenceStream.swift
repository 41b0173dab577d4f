import Foundation
import Playbook

/// Where the references of a bulk creation come from. They are read lazily, batch by batch, so a run
/// over a million references never holds them all.
public enum ReferenceSource: Sendable, Hashable {
    /// `<prefix>-1` ... `<prefix>-<count>`.
    case numbered(prefix: String, count: Int)
    /// The non-empty `reference` cells of a CSV file with a header, in file order.
    case csv(path: String)
    /// A list given in memory (small inputs, tests).
    case list([String])

    /// How many references the source yields, when known without reading it (nil for a CSV file).
    var knownCount: Int? {
        switch self {
        case .numbered(_, let count): max(0, count)
        case .list(let references): references.count
        case .csv: nil
        }
    }
}

/// Reads a ``ReferenceSource`` in order, a batch at a time; not for concurrent use.
final class ReferenceStream {
    private let source: ReferenceSource
    private var position = 0
    private let reader: CSVReader?

    init(_ source: ReferenceSource) throws {
        self.source = source
        if case .csv(let path) = source {
            do {
                reader = try CSVReader(url: URL(fileURLWithPath: path), header: true, columns: ["reference"])
            } catch {
                throw JobsError(.invalidInput, "\(path): \(error)")
            }
        } else {
            reader = nil
        }
    }

    /// Up to `limit` next references; empty at the end.
    func next(_ limit: Int) throws -> [String] {
        var batch: [String] = []
        batch.reserveCapacity(limit)
        switch source {
        case .numbered(let prefix, let count):
            while batch.count < limit && position < count {
                position += 1
                batch.append("\(prefix)-\(position)")
            }
        case .list(let references):
            while batch.count < limit && position < references.count {
                batch.append(references[position])
                position += 1
            }
        case .csv(let path):
            while batch.count < limit {
                let record: CSVReader.Record?
                do {
                    record = try reader?.next()
                } catch {
                    throw JobsError(.invalidInput, "\(path): \(error)")
                }
                guard let record else { break }
                if let reference = record.values["reference"], !reference.isEmpty { batch.append(reference) }
            }
        }
        return batch
    }
}
