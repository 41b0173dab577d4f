import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension WaasHTTPServer {
    /// Serves until one of `signals` arrives, then stops gracefully (`stop(grace:)`) and returns once
    /// stopped. A second signal during the grace period ends it at once. Also returns when the server is
    /// stopped another way. For `walletops core serve`.
    ///
    /// The signals are set to be ignored while it runs (so they reach the Dispatch sources instead of
    /// ending the process) and their previous handling is put back when it returns.
    public func runUntilSignalled(_ signals: [Int32] = [SIGTERM, SIGINT], grace: Duration = .seconds(10)) async {
        let queue = DispatchQueue(label: "WaasHTTPServer.signals")
        var previous: [(Int32, sighandler_t?)] = []
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            previous.append((number, signal(number, SIG_IGN)))
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in
                hurryIfStopping()
                Task { await self.stop(grace: grace) }
            }
            source.resume()
            sources.append(source)
        }
        await waitUntilStopped()
        for source in sources { source.cancel() }
        for (number, handler) in previous { signal(number, handler) }
    }
}
