import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into calls: the first runs `onFirst` (a graceful stop), later ones
/// `onRepeat` (stop at once). The default actions are ignored while the trap is installed, so these
/// signals never kill the process half-way; the handlers run on a dispatch queue, not in a signal
/// context.
// @unchecked: the sources are set in init and released in cancel(), both on the one task that runs the command.
final class SignalTrap: @unchecked Sendable {
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    private var sources: [any DispatchSourceSignal] = []
    private let counter = Counter()
    private let queue = DispatchQueue(label: "walletops.signals")

    init(onFirst: @escaping @Sendable (Int32) -> Void, onRepeat: @escaping @Sendable (Int32) -> Void) {
        let counter = counter
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if counter.value.add(1, ordering: .relaxed).newValue == 1 { onFirst(number) } else { onRepeat(number) }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Whether a signal arrived.
    var fired: Bool { counter.value.load(ordering: .relaxed) > 0 }

    /// Removes the handlers and restores the default actions.
    func cancel() {
        for source in sources { source.cancel() }
        sources = []
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
