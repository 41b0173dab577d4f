/// A method of the WaaS service and its HTTP path (`POST /v1/<Service>/<Method>`).
public struct WaasMethod: Hashable, Sendable, CustomStringConvertible {
    /// Protected methods need a signed request; public ones only the `Api-Key`.
    public enum Service: String, Sendable {
        case waas = "Waas"
        case waasPublic = "WaasPublic"
    }

    public let service: Service
    public let name: String

    public init(_ service: Service, _ name: String) {
        self.service = service
        self.name = name
    }

    public var path: String { "/v1/\(service.rawValue)/\(name)" }
    public var isProtected: Bool { service == .waas }
    public var description: String { path }

    /// Parses `/v1/Waas/<Method>` or `/v1/WaasPublic/<Method>`.
    public init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "v1", let service = Service(rawValue: String(parts[2])),
            !parts[3].isEmpty
        else { return nil }
        self.init(service, String(parts[3]))
    }

    // Protected methods.
    public static let commitVerifier = WaasMethod(.waas, "CommitVerifier")
    public static let completeAuth = WaasMethod(.waas, "CompleteAuth")
    public static let registerCredential = WaasMethod(.waas, "RegisterCredential")
    public static let revokeCredential = WaasMethod(.waas, "RevokeCredential")
    public static let authorizeRemoteAccess = WaasMethod(.waas, "AuthorizeRemoteAccess")
    public static let listAccess = WaasMethod(.waas, "ListAccess")
    public static let revokeAccess = WaasMethod(.waas, "RevokeAccess")
    public static let listWallets = WaasMethod(.waas, "ListWallets")
    public static let createWallet = WaasMethod(.waas, "CreateWallet")
    /// A walletops extension: many wallets by reference in one signed request (docs/protocol.md).
    public static let createWallets = WaasMethod(.waas, "CreateWallets")
    public static let useWallet = WaasMethod(.waas, "UseWallet")
    public static let signMessage = WaasMethod(.waas, "SignMessage")
    public static let signTypedData = WaasMethod(.waas, "SignTypedData")
    public static let prepareEthereumTransaction = WaasMethod(.waas, "PrepareEthereumTransaction")
    public static let prepareEthereumContractCall = WaasMethod(.waas, "PrepareEthereumContractCall")
    public static let prepareSolanaTransfer = WaasMethod(.waas, "PrepareSolanaTransfer")
    public static let execute = WaasMethod(.waas, "Execute")
    public static let transactionStatus = WaasMethod(.waas, "TransactionStatus")
    public static let getIDToken = WaasMethod(.waas, "GetIDToken")
    public static let getSession = WaasMethod(.waas, "GetSession")
    public static let getSessionUsage = WaasMethod(.waas, "GetSessionUsage")
    public static let listSessions = WaasMethod(.waas, "ListSessions")
    public static let getRecipientKey = WaasMethod(.waas, "GetRecipientKey")
    public static let importWallet = WaasMethod(.waas, "ImportWallet")
    /// A walletops extension: many keys sealed to one recipient key, one attested reply (docs/import.md).
    public static let importWallets = WaasMethod(.waas, "ImportWallets")

    // Public methods.
    public static let status = WaasMethod(.waasPublic, "Status")
    public static let getJWKS = WaasMethod(.waasPublic, "GetJWKS")
    public static let isValidMessageSignature = WaasMethod(.waasPublic, "IsValidMessageSignature")
    public static let isValidTypedDataSignature = WaasMethod(.waasPublic, "IsValidTypedDataSignature")
    public static let inspectCredential = WaasMethod(.waasPublic, "InspectCredential")
    /// A walletops extension: the audiences the project trusts an OIDC issuer with (docs/protocol.md).
    public static let getTrustedAudiences = WaasMethod(.waasPublic, "GetTrustedAudiences")
}
