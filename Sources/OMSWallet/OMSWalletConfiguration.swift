import Foundation
import OMSCore
import OMSProtocol

/// Which WaaS core an `OMSWallet` talks to.
public enum OMSWalletCore: Sendable {
    /// The core of an initialized home, run inside this process (`walletops core init --home DIR`).
    case embedded(home: URL)
    /// A served core (`walletops core serve`), e.g. `http://127.0.0.1:8787`.
    case remote(URL)
    /// An already opened in-process core (shared by several SDK instances, as tests and tools do).
    case service(WaasService)
    /// Any transport to a core (a test double, a proxy); no development issuer or attestation root.
    case transport(any WaasTransport)

    /// The default: the embedded core of `$WALLETOPS_HOME`, else `./.walletops`, as the CLI resolves it.
    public static func `default`(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> OMSWalletCore
    {
        .embedded(home: CoreHome.resolve(explicit: nil, environment: environment).url)
    }
}

/// Settings of an `OMSWallet` beyond its publishable key and core.
public struct OMSWalletConfiguration: Sendable {
    /// The storage scope directory; nil for `$XDG_DATA_HOME/walletops/sdk/<projectId>`
    /// (else `~/.local/share/walletops/sdk/<projectId>`).
    public var storageDirectory: URL?
    /// The wallet type sign-in looks for (and creates when the account has none).
    public var walletType: WalletType
    /// The session lifetime CompleteAuth asks for, in seconds (1...2,592,000; default 604,800).
    public var sessionLifetime: Int
    /// The time source for expiry checks and observers.
    public var clock: any OMSWalletClock
    /// What attested import replies must chain to. Nil: the embedded core's own development root, or
    /// the `attestation-root.pem` of `developmentHome`; for another remote core no import is possible
    /// until one is set (docs/sdk.md "Import").
    public var attestation: AttestationPolicy?
    /// The home of a served core, so `signInWithDevelopmentIssuer(email:)` can mint its dev tokens.
    public var developmentHome: URL?
    /// Seconds before `expiresAt` at which the SDK treats a session as expired (OMS-REFERENCE: 30).
    public var clockSkew: TimeInterval

    /// The defaults: the default scope, Ethereum, 604,800 s, the system clock, 30 s skew.
    public init(
        storageDirectory: URL? = nil, walletType: WalletType = .ethereum, sessionLifetime: Int = 604_800,
        clock: any OMSWalletClock = SystemWalletClock(), attestation: AttestationPolicy? = nil,
        developmentHome: URL? = nil, clockSkew: TimeInterval = 30
    ) {
        self.storageDirectory = storageDirectory
        self.walletType = walletType
        self.sessionLifetime = sessionLifetime
        self.clock = clock
        self.attestation = attestation
        self.developmentHome = developmentHome
        self.clockSkew = clockSkew
    }
}
