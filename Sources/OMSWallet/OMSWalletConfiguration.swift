import Foundation
import OMSProtocol

/// Which WaaS core an `OMSWallet` talks to: how to reach it, and what it offers beyond the protocol.
///
/// The SDK reaches a core only through the transport of the connection it opens, so an in-process and a
/// served core behave the same. This module has `.remote(_:)` and `.transport(_:developmentIssuer:attestation:)`;
/// OMSEmbedded adds `.embedded(home:)`, `.service(_:)` and `.remote(_:developmentHome:)` for apps that run
/// the core in the process or sit beside a served core's home (docs/sdk.md "Cores").
public struct OMSWalletCore: Sendable {
    /// A reached core: its transport and the development pieces it offers.
    public struct Connection: Sendable {
        /// How requests travel to the core.
        public var transport: any WaasTransport
        /// What `signInWithDevelopmentIssuer(email:)` mints with; nil: that call is a `.validationError`.
        public var developmentIssuer: (any DevelopmentIssuer)?
        /// What import replies must chain to when `configuration.attestation` is nil (a development core's
        /// own root); nil: import is refused with `.attestationVerificationFailed` before any key is sent.
        /// Its error's description becomes that error's message.
        public var attestation: (@Sendable () async throws -> AttestationPolicy)?

        public init(
            transport: any WaasTransport, developmentIssuer: (any DevelopmentIssuer)? = nil,
            attestation: (@Sendable () async throws -> AttestationPolicy)? = nil
        ) {
            self.transport = transport
            self.developmentIssuer = developmentIssuer
            self.attestation = attestation
        }
    }

    /// Reaches the core; `OMSWallet`'s initializers call it once.
    let connect: @Sendable () throws -> Connection

    /// A core reached by `connect`, which `OMSWallet.init` calls once; a thrown `OMSWalletError` is rethrown
    /// as it is, any other error becomes a `.storageError` (the core could not be opened).
    public init(connect: @escaping @Sendable () throws -> Connection) {
        self.connect = connect
    }

    /// A served core (`walletops core serve`), e.g. `http://127.0.0.1:8787`, reached over HTTP.
    public static func remote(_ url: URL) -> OMSWalletCore {
        OMSWalletCore { Connection(transport: HTTPTransport(baseURL: url)) }
    }

    /// Any transport to a core (a test's counter, a proxy), with the development pieces the caller has.
    ///
    /// - Parameters:
    ///   - developmentIssuer: what `signInWithDevelopmentIssuer(email:)` mints with; nil for none.
    ///   - attestation: what import replies must chain to when `configuration.attestation` is nil.
    public static func transport(
        _ transport: any WaasTransport, developmentIssuer: (any DevelopmentIssuer)? = nil,
        attestation: AttestationPolicy? = nil
    ) -> OMSWalletCore {
        OMSWalletCore {
            Connection(
                transport: transport, developmentIssuer: developmentIssuer,
                attestation: attestation.map { policy in { @Sendable in policy } })
        }
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
    /// What attested import replies must chain to. Nil: what the core's connection offers (an embedded
    /// core's own development root, a served core's home's `attestation-root.pem`); for another remote core
    /// no import is possible until one is set (docs/sdk.md "Import").
    public var attestation: AttestationPolicy?
    /// Seconds before `expiresAt` at which the SDK treats a session as expired (OMS-REFERENCE: 30).
    public var clockSkew: TimeInterval

    /// The defaults: the default scope, Ethereum, 604,800 s, the system clock, 30 s skew.
    public init(
        storageDirectory: URL? = nil, walletType: WalletType = .ethereum, sessionLifetime: Int = 604_800,
        clock: any OMSWalletClock = SystemWalletClock(), attestation: AttestationPolicy? = nil,
        clockSkew: TimeInterval = 30
    ) {
        self.storageDirectory = storageDirectory
        self.walletType = walletType
        self.sessionLifetime = sessionLifetime
        self.clock = clock
        self.attestation = attestation
        self.clockSkew = clockSkew
    }
}
