import OMSProtocol
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

    /// The wallets as a ``RecordTable``: the JSON objects name the key origin `keyOrigin`, as the wire does.
    static func render(_ wallets: [Wallet], as format: Format) -> String {
        let objects = wallets.map { wallet -> JSONValue in
            .object([
                "id": .string(wallet.id), "type": .string(wallet.walletType.rawValue),
                "address": .string(wallet.address), "reference": wallet.reference.map(JSONValue.string) ?? .null,
                "keyOrigin": .string(wallet.keyOrigin.rawValue),
            ])
        }
        return RecordTable(headers: headers, rows: wallets.map(row), objects: objects).render(as: format)
    }
}
