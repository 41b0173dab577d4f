import Foundation
import HomeLayout
import OMSProtocol
import WalletCrypto

/// The way to one core: the embedded core of a home (run in this process, reached through its
/// in-process transport) or a served core (`--core URL`, reached through `HTTPTransport`).
///
/// Both paths send the same signed request bytes, so a command behaves the same against either; the jobs
/// never link the core: the embedded one is opened by the ``InProcessCoreOpener`` the CLI hands in.
public struct CoreConnection: Sendable {
    /// The home folder: the embedded core, and always the stored credential.
    public let home: WalletHome
    /// The served core, or nil for the embedded one.
    public let coreURL: URL?
    /// How requests travel.
    public let transport: any WaasTransport
    /// The development issuer of the home's core, when the home's core was opened (always without `--core`).
    public let developmentIssuer: (any DevelopmentIssuer)?
    /// The home's core's ``InProcessCore/prepareToClose``, when this connection opened it; else nothing.
    public let prepareToClose: @Sendable () async -> Void

    /// A connection of the given pieces.
    public init(
        home: WalletHome, coreURL: URL?, transport: any WaasTransport, developmentIssuer: (any DevelopmentIssuer)?,
        prepareToClose: @escaping @Sendable () async -> Void = {}
    ) {
        self.home = home
        self.coreURL = coreURL
        self.transport = transport
        self.developmentIssuer = developmentIssuer
        self.prepareToClose = prepareToClose
    }

    /// `embedded`, or the served core's URL: what a stored credential is bound to.
    public var coreName: String { Self.coreName(coreURL) }

    static func coreName(_ url: URL?) -> String {
        guard let url else { return StoredCredential.embedded }
        let text = url.absoluteString
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// Refuses a home where `walletops core init` has not run.
    ///
    /// - Throws: `JobsError.noCore`, naming the command that makes one.
    public static func requireCore(_ home: WalletHome) throws(JobsError) {
        guard home.isInitialized else {
            throw JobsError(.noCore, "\(home.url.path) has no core: run 'walletops core init --home \(home.url.path)'")
        }
    }

    /// A connection to the core named by `--home` / `--core`.
    ///
    /// - Parameters:
    ///   - openHome: whether to open the home's core even with `--core` (for what only the home holds: the
    ///     development issuer's key).
    ///   - inProcess: opens the home's core in this process (the CLI's is OMSEmbedded's `EmbeddedCore`).
    /// - Throws: `JobsError.noCore` when the home has no core and it is needed.
    public static func open(
        home: WalletHome, coreURL: URL?, openHome: Bool = true, inProcess: InProcessCoreOpener
    ) throws -> CoreConnection {
        if let coreURL, !openHome {
            return CoreConnection(
                home: home, coreURL: coreURL, transport: HTTPTransport(baseURL: coreURL), developmentIssuer: nil)
        }
        try requireCore(home)
        let local = try inProcess(home)
        return CoreConnection(
            home: home, coreURL: coreURL, transport: coreURL.map { HTTPTransport(baseURL: $0) } ?? local.transport,
            developmentIssuer: local.developmentIssuer, prepareToClose: local.prepareToClose)
    }

    /// A client without a credential (public methods and sign-in's first call need a signer anyway).
    public func client(publishableKey: PublishableKey, signer: (any RequestSigner)? = nil) -> WaasClient {
        WaasClient(transport: transport, publishableKey: publishableKey, signer: signer)
    }

    /// The signed-in client: the stored credential checked before any request, and a client signing with it
    /// while its session lasts (``StoredCredential/sessionSigner(now:)``).
    ///
    /// Against the embedded core it opens the home; against `--core` it needs only the credential file.
    /// - Throws: `JobsError.notSignedIn` / `.sessionExpired` before any request is made.
    public static func signedIn(
        home: WalletHome, coreURL: URL?, inProcess: InProcessCoreOpener,
        now: Int64 = Int64(Date().timeIntervalSince1970)
    ) throws -> (connection: CoreConnection, credential: StoredCredential, client: WaasClient) {
        let credential = try StoredCredential.require(home: home, core: coreName(coreURL), now: now)
        let key: PublishableKey
        do {
            key = try PublishableKey(credential.publishableKey)
        } catch {
            throw JobsError(.invalidCredential, "the stored credential's publishable key is invalid: sign in again")
        }
        let connection = try open(home: home, coreURL: coreURL, openHome: false, inProcess: inProcess)
        return (connection, credential, connection.client(publishableKey: key, signer: try credential.sessionSigner()))
    }

    /// Every wallet of the signed-in account, following all pages.
    public static func allWallets(_ client: WaasClient) async throws -> [Wallet] {
        var wallets: [Wallet] = []
        try await forEachWalletPage(client) { wallets += $0 }
        return wallets
    }

    /// Lists the account's wallets page by page, handing each page to `body` as it arrives (nothing kept).
    public static func forEachWalletPage(_ client: WaasClient, _ body: ([Wallet]) throws -> Void) async throws {
        var page: Page?
        repeat {
            let response = try await client.call(
                .listWallets, ListWalletsRequest(page: page), as: ListWalletsResponse.self)
            try body(response.wallets)
            page = response.page.flatMap { $0.hasMore ? Page(limit: $0.limit, cursor: $0.cursor) : nil }
        } while page != nil
    }
}

/// The embedded core of a home as the jobs reach it: its in-process transport and its development issuer.
public struct InProcessCore: Sendable {
    /// The same signed bytes the HTTP server would receive, handed to the core in this process.
    public let transport: any WaasTransport
    /// Mints development ID tokens from the home's key (`walletops login --dev`, `demo.seed`).
    public let developmentIssuer: any DevelopmentIssuer
    /// Called once the command has no more requests for the core, before it closes it (the embedded core's
    /// `prepareToClose`): work the close would do can be done then, beside the command's last writes.
    public let prepareToClose: @Sendable () async -> Void

    /// The pieces of one opened core.
    public init(
        transport: any WaasTransport, developmentIssuer: any DevelopmentIssuer,
        prepareToClose: @escaping @Sendable () async -> Void = {}
    ) {
        self.transport = transport
        self.developmentIssuer = developmentIssuer
        self.prepareToClose = prepareToClose
    }
}

/// Opens the core of an initialized home in this process. The CLI hands one in (made from OMSEmbedded's
/// `EmbeddedCore`) so the jobs depend on the protocol only, never on the core.
public typealias InProcessCoreOpener = @Sendable (WalletHome) throws -> InProcessCore
