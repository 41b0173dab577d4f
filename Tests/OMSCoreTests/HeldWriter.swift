import Dispatch
import SQLiteKit

@testable import OMSCore

/// A write that holds a store's writer until ``release()``: every write queued meanwhile waits behind it.
struct HeldWriter {
    /// Answers true when the write was released before its timeout (false: the test took too long).
    let ticket: WriteTicket<Bool>
    private let releaseSignal: DispatchSemaphore

    /// Submits the holding write, which runs `body` first, and returns once it is running.
    init(
        _ store: CoreStore, timeoutSeconds: Int = 30,
        _ body: @escaping @Sendable (SQLiteDatabase) throws -> Void = { _ in }
    ) async {
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        ticket = store.submit { db -> Bool in
            try body(db)
            running.signal()
            return release.wait(timeout: .now() + .seconds(timeoutSeconds)) == .success
        }
        releaseSignal = release
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                running.wait()
                continuation.resume()
            }
        }
    }

    func release() { releaseSignal.signal() }
}
