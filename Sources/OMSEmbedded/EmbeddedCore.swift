import Foundation
import HomeLayout
import OMSCore
import OMSProtocol

/// A WaaS core running in this process, and the pieces a client is handed to reach it.
///
/// What an app, a test or the CLI opts into to run without a server: clients above OMSCore get its
/// transport, development issuer and attestation policy from here and never call the service object, so an
/// embedded and a served core behave the same (ARCHITECTURE "One way in").
public struct EmbeddedCore: Sendable {
    /// The service of the home, for the tools that administer it (`core init`, `core serve`).
    public let service: WaasService

    /// The core of an already opened service (shared by several clients, as tests and tools do).
    public init(service: WaasService) {
        self.service = service
    }

    /// Opens the core of a home made by `walletops core init`, its store with `storeTuning`.
    ///
    /// - Throws: `CoreHomeError` when the home has no core or its key cannot be read.
    public static func open(home: URL, storeTuning: CoreStore.Tuning = .default) throws -> EmbeddedCore {
        EmbeddedCore(service: try WaasService.open(home: WalletHome(url: home), storeTuning: storeTuning))
    }

    /// The in-process transport: the same signed bytes the HTTP server would receive, handed to the service.
    public var transport: any WaasTransport { InProcessTransport(handler: service) }

    /// Puts the store's log away (``CoreStore/truncateLog()``) once this process has no more requests for the
    /// core, beside its other work, so that the close is quick; the core stays usable.
    public func prepareToClose() async { await service.store.truncateLog() }

    /// The core's development issuer, read from the core's store at each token.
    public var developmentIssuer: CoreDevelopmentIssuer { CoreDevelopmentIssuer(service: service) }

    /// Trust in the core's own development attestation root, what its import replies chain to.
    ///
    /// - Throws: `CoreHomeError` when the core's root cannot be read.
    public func attestationPolicy() async throws -> AttestationPolicy {
        do {
            return .development(root: try await service.attestationRoot())
        } catch {
            throw CoreHomeError("the core's attestation root is unavailable")
        }
    }
}
