import Foundation
import OMSCore
import OMSProtocol

extension CoreFixture {
    /// A fixture whose transport `connect` makes; a transport that fails to start (a server that cannot
    /// bind) is rethrown, since the fixture's own transport closure cannot throw.
    static func connected(
        clock: any CoreClock = SystemClock(), _ connect: @escaping (WaasService) throws -> any WaasTransport
    ) throws -> CoreFixture {
        var failure: (any Error)?
        let core = try CoreFixture(clock: clock) { service in
            do { return try connect(service) } catch {
                failure = error
                return InProcessTransport(handler: service)
            }
        }
        if let failure {
            core.remove()
            throw failure
        }
        return core
    }

    /// Stops the served core, if the transport (or the transport a `TamperingTransport` wraps) is one,
    /// and removes the home.
    func removeServed() {
        var wire: any WaasTransport = transport
        if let tampering = wire as? TamperingTransport { wire = tampering.inner }
        (wire as? ServedCoreTransport)?.stopSoon()
        remove()
    }
}
