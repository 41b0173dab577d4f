import Foundation
import HomeLayout
import OMSCore
import OMSEmbedded
import OMSProtocol
import OMSWallet
import Synchronization
import WalletCrypto

/// How the SDK reaches the core in a test: in the process, or over HTTP to `core serve`.
enum CoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case embedded, remote
    var description: String { rawValue }
}

/// A core in a temporary home (served on a free port for `.remote`), and SDK instances on it.
final class SDKFixture: Sendable {
    let kind: CoreKind
    let root: URL
    let home: URL
    let service: WaasService
    let publishableKey: String
    let projectId: String
    let server: WaasHTTPServer?
    let attestationRoot: X509Certificate

    static func make(_ kind: CoreKind = .embedded) async throws -> SDKFixture {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("walletops-sdk-\(UUID().uuidString)")
        let home = root.appendingPathComponent("core")
        let result = try WaasService.initialize(home: WalletHome(url: home), project: "sdk")
        let service = try WaasService.open(home: WalletHome(url: home))
        let server = kind == .remote ? try WaasHTTPServer.start(handler: service) : nil
        return SDKFixture(
            kind: kind, root: root, home: home, service: service, publishableKey: result.project.publishableKey,
            projectId: result.project.id, server: server, attestationRoot: try await service.attestationRoot())
    }

    private init(
        kind: CoreKind, root: URL, home: URL, service: WaasService, publishableKey: String, projectId: String,
        server: WaasHTTPServer?, attestationRoot: X509Certificate
    ) {
        self.kind = kind
        self.root = root
        self.home = home
        self.service = service
        self.publishableKey = publishableKey
        self.projectId = projectId
        self.server = server
        self.attestationRoot = attestationRoot
    }

    /// A fresh storage scope directory.
    func newScope() -> URL { root.appendingPathComponent("scope-\(UUID().uuidString)") }

    /// The default scope of this fixture's tests.
    var scope: URL { root.appendingPathComponent("scope") }

    /// The core as the SDK names it: the embedded home, or the served URL with its home on this machine.
    var core: OMSWalletCore {
        switch kind {
        case .embedded: .embedded(home: home)
        case .remote: .remote(server!.baseURL, developmentHome: home)
        }
    }

    func configuration(scope: URL? = nil, clock: any OMSWalletClock = SystemWalletClock()) -> OMSWalletConfiguration {
        OMSWalletConfiguration(
            storageDirectory: scope ?? self.scope, clock: clock,
            attestation: kind == .remote ? .development(root: attestationRoot) : nil)
    }

    /// An SDK instance on this core.
    func wallet(scope: URL? = nil, clock: any OMSWalletClock = SystemWalletClock()) throws -> OMSWallet {
        try OMSWallet(
            publishableKey: publishableKey, core: core, configuration: configuration(scope: scope, clock: clock))
    }

    /// An SDK instance whose requests go through `transport` (in process).
    func wallet(transport: any WaasTransport, scope: URL? = nil, clock: any OMSWalletClock = SystemWalletClock())
        throws -> OMSWallet
    {
        var configuration = configuration(scope: scope, clock: clock)
        // A bare transport gives no access to the core's attestation root: pin it, as a remote app would.
        configuration.attestation = .development(root: attestationRoot)
        return try OMSWallet(publishableKey: publishableKey, core: .transport(transport), configuration: configuration)
    }

    /// An ID token of the core's development issuer for `email`.
    func devToken(email: String) async throws -> String {
        try await service.devIssuer()!.idToken(email: email, now: service.now)
    }

    /// An SDK instance signed in as `email` with an active wallet.
    func signedIn(
        email: String = "user@example.com", scope: URL? = nil, clock: any OMSWalletClock = SystemWalletClock()
    )
        async throws -> OMSWallet
    {
        let sdk = try wallet(scope: scope, clock: clock)
        let result = try await sdk.wallet.signIn(idToken: try await devToken(email: email))
        guard result.session != nil else { throw FixtureError("sign-in of \(email) needs a wallet selection") }
        return sdk
    }

    /// A remote credential (an app backend's Ethereum key) registered with display metadata.
    func registerRemoteCredential(appName: String = "Trading Bot", appUrl: String = "https://bot.example.com")
        async throws -> (client: WaasClient, credentialId: String)
    {
        let client = WaasClient(
            transport: InProcessTransport(handler: service), publishableKey: try PublishableKey(publishableKey),
            signer: EthereumRequestSigner(key: Secp256k1.PrivateKey.generate()))
        let reply = try await client.call(
            .registerCredential,
            RegisterCredentialRequest(
                lifetime: 86_400, metadata: CredentialMetadata(appUrl: appUrl, appName: appName)),
            as: RegisterCredentialResponse.self)
        return (client, reply.credentialId)
    }

    func close() async {
        await server?.stop(grace: .seconds(2))
        try? FileManager.default.removeItem(at: root)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Counts the requests that reach the core, by method name; requests to `held` methods wait until
/// `release()`, so a test can act while one is provably in flight (no guessed delay).
final class CountingTransport: WaasTransport {
    let inner: any WaasTransport
    let held: Set<String>
    private let seen = Mutex<[String]>([])
    private let released = Mutex(false)

    init(_ inner: any WaasTransport, holding held: Set<String> = []) {
        self.inner = inner
        self.held = held
    }

    var methods: [String] { seen.withLock { $0 } }
    var count: Int { methods.count }

    /// Lets the held requests (and later ones) through.
    func release() { released.withLock { $0 = true } }

    func send(_ request: WaasHTTPRequest) async throws -> WaasHTTPResponse {
        let name = String(request.path.split(separator: "/").last ?? "")
        seen.withLock { $0.append(name) }
        if held.contains(name) {
            // A safety limit only: a test that never releases fails instead of hanging.
            let deadline = ContinuousClock.now + .seconds(30)
            while !released.withLock({ $0 }) {
                guard ContinuousClock.now < deadline else { throw FixtureError("\(name) was held for 30 s") }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        return try await inner.send(request)
    }

    /// Waits until a request to `method` has gone out (at most `seconds`).
    func waitForRequest(_ method: String, seconds: Int = 30) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !methods.contains(method) {
            guard ContinuousClock.now < deadline else { throw FixtureError("no \(method) request in \(seconds) s") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Collects expiry events delivered on the main actor.
final class ExpiryRecorder: Sendable {
    private let events = Mutex<[SessionExpiredEvent]>([])

    var received: [SessionExpiredEvent] { events.withLock { $0 } }

    /// Runs on the main actor (checked at run time too: on Linux, after `dispatch_main()`, the main
    /// queue may be drained by a dispatch worker thread, so the thread is not the process's first one).
    @MainActor func record(_ event: SessionExpiredEvent) {
        MainActor.assertIsolated("expiry observers run on the main actor")
        events.withLock { $0.append(event) }
    }

    /// Waits (up to `seconds`) until `count` events arrived. The bound is a safety net only: in the full
    /// suite, tests that block on child processes can hold both cooperative threads of a 2-core machine
    /// for over a minute, and the timer's wake-up waits for one of them.
    func wait(for count: Int, seconds: Double = 300) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if received.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return received.count >= count
    }
}

/// The error an async call threw, as an `OMSWalletError`.
func walletError(_ body: () async throws -> Void) async -> OMSWalletError? {
    do {
        try await body()
        return nil
    } catch let error as OMSWalletError {
        return error
    } catch {
        return OMSWalletError(.requestFailed, operation: "test", "unexpected \(type(of: error)): \(error)")
    }
}
