import Foundation
import OMSProtocol
import WalletCrypto

/// The input rules of access grants and remote credentials (OMS-REFERENCE "Rules the public sources
/// state" and "Our decisions"). Pure functions: they run before a request's transaction, so a refused
/// request changes nothing.
enum AccessRules {
    /// At most 16 grants per session.
    static let maxGrants = 16
    /// A remote credential lives at most 30 days.
    static let credentialLifetime = 1...2_592_000
    static let appNameLength = 1...64
    static let maxCustomPairs = 16
    static let maxCustomLength = 256
    static let maxURLLength = 2048

    /// A grant checked and reduced to what spending needs.
    struct CheckedGrant: Sendable {
        var grant: Grant
        /// `native:<to>` or `erc20:<token>:<to or *>`, lowercase: the identity of the allowance, which
        /// keys its usage (so re-authorizing the same grant keeps what was already spent).
        var key: String
        var token: String?
        var to: String?
        var limit: TokenAmount
        /// False only for an ERC-20 grant with `cumulative: false`: the limit then caps each transfer.
        var cumulative: Bool
    }

    /// An EVM address: `0x` + 40 hex digits in any case (the checksum is not enforced); returned lowercase.
    static func address(_ text: String, field: String) throws(WaasError) -> String {
        guard let parsed = try? EthereumAddress(text, strict: false) else {
            throw WaasError(.invalidRequest, "\(field): expected 0x followed by 40 hex digits")
        }
        return parsed.lowercased
    }

    /// A canonical unsigned decimal: digits only, no sign, no leading zero but "0", at most 2^256 - 1.
    static func amount(_ text: String, field: String) throws(WaasError) -> TokenAmount {
        do {
            return try TokenAmount(parsing: text)
        } catch {
            throw WaasError(.invalidRequest, "\(field): \(error.description)")
        }
    }

    /// A chain id: a canonical decimal naming a known network.
    static func chain(_ text: String, field: String) throws(WaasError) -> Network {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), text == "0" || !text.hasPrefix("0"),
            let id = UInt64(text)
        else { throw WaasError(.invalidRequest, "\(field): expected a chain id as a decimal string") }
        guard let network = Network.all.first(where: { $0.chainId == id }) else {
            throw WaasError(.unsupportedNetwork, "\(field): chain \(id) is not a supported network")
        }
        return network
    }

    /// An RFC 3339 timestamp in UTC (`Z` or `+00:00`), as Unix seconds.
    static func utcTime(_ text: String, field: String) throws(WaasError) -> Int64 {
        guard text.hasSuffix("Z") || text.hasSuffix("+00:00"), let seconds = RFC3339.parse(text) else {
            throw WaasError(.invalidRequest, "\(field): expected an RFC 3339 UTC time like 2026-01-02T03:04:05Z")
        }
        return seconds
    }

    /// Checks 1...16 grants with no duplicates (two grants with the same allowance key).
    static func grants(_ grants: [Grant]) throws(WaasError) -> [CheckedGrant] {
        guard !grants.isEmpty else { throw WaasError(.invalidRequest, "grants: at least one grant is required") }
        guard grants.count <= maxGrants else {
            throw WaasError(.invalidRequest, "grants: \(grants.count) grants; at most \(maxGrants)")
        }
        var checked: [CheckedGrant] = []
        var keys: Set<String> = []
        for (index, grant) in grants.enumerated() {
            let one = try self.grant(grant, field: "grants[\(index)]")
            guard keys.insert(one.key).inserted else {
                throw WaasError(.invalidRequest, "grants[\(index)]: duplicates an earlier grant")
            }
            checked.append(one)
        }
        return checked
    }

    static func grant(_ grant: Grant, field: String) throws(WaasError) -> CheckedGrant {
        switch grant.kind {
        case .nativeTransfer:
            guard let native = grant.nativeTransfer, grant.erc20Transfer == nil else {
                throw WaasError(.invalidRequest, "\(field): kind nativeTransfer needs nativeTransfer and nothing else")
            }
            let to = try address(native.to, field: "\(field).nativeTransfer.to")
            let limit = try amount(native.limit, field: "\(field).nativeTransfer.limit")
            return CheckedGrant(grant: grant, key: "native:\(to)", token: nil, to: to, limit: limit, cumulative: true)
        case .erc20Transfer:
            guard let erc20 = grant.erc20Transfer, grant.nativeTransfer == nil else {
                throw WaasError(.invalidRequest, "\(field): kind erc20Transfer needs erc20Transfer and nothing else")
            }
            let token = try address(erc20.token, field: "\(field).erc20Transfer.token")
            let to = try erc20.to.map { (to) throws(WaasError) in try address(to, field: "\(field).erc20Transfer.to") }
            let limit = try amount(erc20.limit, field: "\(field).erc20Transfer.limit")
            return CheckedGrant(
                grant: grant, key: "erc20:\(token):\(to ?? "*")", token: token, to: to, limit: limit,
                cumulative: erc20.cumulative ?? true)
        case .unknown(let kind):
            throw WaasError(.invalidRequest, "\(field).kind: unknown grant kind \(kind)")
        }
    }

    /// The grant that pays for a transfer: the one naming this receiver, else a shared ERC-20 allowance
    /// of the token (one without `to`).
    static func match(_ grants: [CheckedGrant], token: String?, to: String) -> CheckedGrant? {
        grants.first { $0.token == token && $0.to == to }
            ?? grants.first { $0.token != nil && $0.token == token && $0.to == nil }
    }

    /// Remote credential metadata: appName 1-64 characters; appUrl and appLogoUrl https (http on loopback)
    /// or empty; at most 16 custom pairs whose keys and values have at most 256 characters.
    static func metadata(_ metadata: CredentialMetadata) throws(WaasError) {
        guard appNameLength.contains(metadata.appName.count) else {
            throw WaasError(.invalidRequest, "metadata.appName: \(metadata.appName.count) characters; 1-64 allowed")
        }
        guard !metadata.appName.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw WaasError(.invalidRequest, "metadata.appName: control characters are not allowed")
        }
        try url(metadata.appUrl, field: "metadata.appUrl")
        try url(metadata.appLogoUrl, field: "metadata.appLogoUrl")
        guard metadata.custom.count <= maxCustomPairs else {
            throw WaasError(
                .invalidRequest, "metadata.custom: \(metadata.custom.count) pairs; at most \(maxCustomPairs)")
        }
        for (key, value) in metadata.custom {
            guard !key.isEmpty, key.count <= maxCustomLength, value.count <= maxCustomLength else {
                throw WaasError(
                    .invalidRequest,
                    "metadata.custom: keys need 1-\(maxCustomLength) and values at most \(maxCustomLength) characters")
            }
        }
    }

    /// Empty, or an absolute https URL with a host; plain http only for a loopback host.
    static func url(_ text: String, field: String) throws(WaasError) {
        if text.isEmpty { return }
        guard text.count <= maxURLLength, let parts = URLComponents(string: text),
            let scheme = parts.scheme?.lowercased(),
            let host = parts.host?.lowercased(), !host.isEmpty
        else { throw WaasError(.invalidRequest, "\(field): not an absolute URL") }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        let loopback =
            host == "localhost" || host == "::1" || host == "[::1]"
            || (octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil })
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw WaasError(.invalidRequest, "\(field): must be https (http only on a loopback host)")
        }
    }
}
