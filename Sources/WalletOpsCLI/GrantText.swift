import OMSProtocol
import WalletCrypto

/// Grants of a remote session as the CLI shows them: one short line per grant for tables, the
/// wire fields for JSON. Amounts are the exact decimal strings of the wire, never rounded.
enum GrantText {
    /// `native to 0xabc... limit 1000`, `erc20 0xtok... to * limit 5 (per transfer)`.
    static func summary(_ grant: Grant) -> String {
        switch grant.kind {
        case .nativeTransfer:
            guard let native = grant.nativeTransfer else { return "nativeTransfer" }
            return "native to \(native.to) limit \(native.limit)"
        case .erc20Transfer:
            guard let erc20 = grant.erc20Transfer else { return "erc20Transfer" }
            let cap = erc20.cumulative == false ? " (per transfer)" : ""
            return "erc20 \(erc20.token) to \(erc20.to ?? "*") limit \(erc20.limit)\(cap)"
        case .unknown(let raw):
            return raw
        }
    }

    /// All grants on one line, separated by `; `.
    static func summary(_ grants: [Grant]?) -> String {
        (grants ?? []).map(summary).joined(separator: "; ")
    }

    /// The columns of `remote usage`: kind, to, token, limit.
    static func columns(_ grant: Grant) -> (kind: String, to: String, token: String, limit: String) {
        switch grant.kind {
        case .nativeTransfer:
            return ("nativeTransfer", grant.nativeTransfer?.to ?? "", "", grant.nativeTransfer?.limit ?? "")
        case .erc20Transfer:
            let erc20 = grant.erc20Transfer
            return ("erc20Transfer", erc20?.to ?? "*", erc20?.token ?? "", erc20?.limit ?? "")
        case .unknown(let raw):
            return (raw, "", "", "")
        }
    }

    /// The grant as a JSON object with the wire's field names.
    static func json(_ grant: Grant) -> JSONValue {
        var object: JSONObject = ["kind": .string(grant.kind.rawValue)]
        if let native = grant.nativeTransfer {
            object["nativeTransfer"] = .object(["to": .string(native.to), "limit": .string(native.limit)])
        }
        if let erc20 = grant.erc20Transfer {
            var fields: JSONObject = ["token": .string(erc20.token), "limit": .string(erc20.limit)]
            fields["to"] = erc20.to.map(JSONValue.string) ?? .null
            if let cumulative = erc20.cumulative { fields["cumulative"] = .bool(cumulative) }
            object["erc20Transfer"] = .object(fields)
        }
        return .object(object)
    }
}
