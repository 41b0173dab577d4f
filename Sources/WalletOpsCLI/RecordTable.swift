import TextFormats
import WalletCrypto

/// Records printed as the listing commands print them (`access list`, `remote sessions`, `remote
/// usage`): an aligned table under upper-case headers, CSV (RFC 4180) under the headers, or a JSON
/// array of objects. The same shapes as ``WalletTable``, for any columns.
struct RecordTable {
    /// The column names, lower-case with underscores (the CSV header).
    var headers: [String]
    /// One row of cells per record, in header order.
    var rows: [[String]]
    /// One JSON object per record (may carry more detail than the cells, e.g. whole grants).
    var objects: [JSONValue]

    func render(as format: WalletTable.Format) -> String {
        switch format {
        case .json:
            return JSONValue.array(objects).serialized() + "\n"
        case .csv:
            return ([headers] + rows).map { CSVField.record($0) + "\n" }.joined()
        case .table:
            let all = [headers.map { $0.uppercased() }] + rows
            let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
            return all.map { row in
                row.indices.map { column in
                    column == row.count - 1
                        ? row[column] : row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
                }.joined(separator: "  ") + "\n"
            }.joined()
        }
    }
}
