/// The kind of key a wallet holds.
public enum WalletType: OpenEnum {
    case ethereum, solana, unknown(String)
    public static let known: [WalletType] = [.ethereum, .solana]
    public var rawValue: String {
        switch self {
        case .ethereum: "ethereum"
        case .solana: "solana"
        case .unknown(let raw): raw
        }
    }
    /// The network family that carries this wallet type on the wire.
    public var networkFamily: NetworkFamily {
        switch self {
        case .ethereum: .evm
        case .solana: .solana
        case .unknown(let raw): .unknown(raw)
        }
    }
}

/// The family of networks a wallet is used on; CreateWallet and ImportWallet send this, never `type`.
public enum NetworkFamily: OpenEnum {
    case evm, solana, unknown(String)
    public static let known: [NetworkFamily] = [.evm, .solana]
    public var rawValue: String {
        switch self {
        case .evm: "evm"
        case .solana: "solana"
        case .unknown(let raw): raw
        }
    }
    /// The wallet type of this family.
    public var walletType: WalletType {
        switch self {
        case .evm: .ethereum
        case .solana: .solana
        case .unknown(let raw): .unknown(raw)
        }
    }
}

/// Where a wallet's key came from.
public enum KeyOrigin: OpenEnum {
    case enclave, imported, unknown(String)
    public static let known: [KeyOrigin] = [.enclave, .imported]
    public var rawValue: String {
        switch self {
        case .enclave: "enclave"
        case .imported: "imported"
        case .unknown(let raw): raw
        }
    }
}

/// How an identity proves itself at sign-in.
public enum IdentityType: OpenEnum {
    case email, phone, oidc, passkey, unknown(String)
    public static let known: [IdentityType] = [.email, .phone, .oidc, .passkey]
    public var rawValue: String {
        switch self {
        case .email: "email"
        case .phone: "phone"
        case .oidc: "oidc"
        case .passkey: "passkey"
        case .unknown(let raw): raw
        }
    }
}

/// The sign-in mode for an identity type.
public enum AuthMode: OpenEnum {
    case otp, idToken, authCode, authCodePKCE, unknown(String)
    public static let known: [AuthMode] = [.otp, .idToken, .authCode, .authCodePKCE]
    public var rawValue: String {
        switch self {
        case .otp: "otp"
        case .idToken: "id-token"
        case .authCode: "auth-code"
        case .authCodePKCE: "auth-code-pkce"
        case .unknown(let raw): raw
        }
    }
}

/// Whether a credential signs for its own account (direct) or acts through a remote session.
public enum CredentialType: OpenEnum {
    case direct, remote, unknown(String)
    public static let known: [CredentialType] = [.direct, .remote]
    public var rawValue: String {
        switch self {
        case .direct: "direct"
        case .remote: "remote"
        case .unknown(let raw): raw
        }
    }
}

/// The kind of a remote-session grant.
public enum GrantKind: OpenEnum {
    case nativeTransfer, erc20Transfer, unknown(String)
    public static let known: [GrantKind] = [.nativeTransfer, .erc20Transfer]
    public var rawValue: String {
        switch self {
        case .nativeTransfer: "nativeTransfer"
        case .erc20Transfer: "erc20Transfer"
        case .unknown(let raw): raw
        }
    }
}
