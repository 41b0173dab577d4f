import Foundation
import HomeLayout
import OMSCore
import OMSProtocol

/// The development issuer of a core this machine can open: an embedded core, or the home of a core served
/// from here (`walletops core serve --home DIR`).
///
/// It reads the issuer's sealed key from the core's store when it mints, so a served core's home is opened
/// only by the caller who named it, for the token, and the client itself never opens a core.
public struct CoreDevelopmentIssuer: DevelopmentIssuer {
    private let core: @Sendable () throws -> WaasService

    /// The issuer of an opened core.
    public init(service: WaasService) {
        self.core = { service }
    }

    /// The issuer of the core in `home`, opened for each token (the core may be served by another process).
    public init(home: URL) {
        self.core = { try WaasService.open(home: WalletHome(url: home)) }
    }

    /// A 600 s ID token for `email` (verified), timed by the core's clock.
    ///
    /// - Throws: `CoreHomeError` when the home has no core, or the core has no development issuer.
    public func idToken(email: String) async throws -> String {
        let service = try core()
        guard let issuer = try await service.devIssuer() else {
            throw CoreHomeError("\(service.home.url.path) has no development issuer")
        }
        return try issuer.idToken(email: email, now: service.now)
    }
}
