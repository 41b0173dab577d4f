import OMSProtocol
import TextFormats
import WalletCrypto

/// Wallets printed as `walletops wallet list` does: an aligned table, CSV (RFC 4180), or a JSON array.
enum WalletTable {
    /// `--format table|csv|json`.
    enum Format: String, CaseIterable {
        case table, csv, json
    }

    static let format = OptionSpec.option(
        "format", help: "The output format.", type: .choice(Format.allCases.map(\.rawValue)), default: "table")

    static let headers = ["id", "type", "address", "reference", "key_origin"]

    static func row(_ wallet: Wallet) -> [String] {
        [wallet.id, wallet.walletType.rawValue, wallet.address, wallet.reference ?? "", wallet.keyOrigin.rawValue]
    }

    static func render(_ wallets: [Wallet], as format: Format) -> String {
        switch format {
        case .json:
            let objects = wallets.map { wallet -> JSONValue in
                .object([
                    "id": .string(wallet.id), "type": .string(wallet.walletType.rawValue),
                    "address": .string(wallet.address), "reference": wallet.reference.map(JSONValue.string) ?? .null,
                    "keyOrigin": .string(wallet.keyOrigin.rawValue),
                ])
            }
            return JSONValue.array(objects).serialized() + "\n"
        case .csv:
            return ([headers] + wallets.map(row)).map { CSVField.record($0) + "\n" }.joined()
        case .table:
            let rows = [headers.map { $0.uppercased() }] + wallets.map(row)
            let widths = headers.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            return rows.map { row in
                row.indices.map { column in
                    column == row.count - 1
                        ? row[column] : row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
                }.joined(separator: "  ") + "\n"
            }.joined()
        }
    }
}
