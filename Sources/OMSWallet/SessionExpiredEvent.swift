import Foundation

/// What a session-expiry observer receives: the expired session as it was, and when it expired.
public struct SessionExpiredEvent: Hashable, Sendable {
    /// A snapshot of the session that expired.
    public let session: OMSWalletSessionState
    /// When the SDK stopped using the session: its `expiresAt` less the 30 s clock-skew margin.
    public let expiredAt: Date
}

/// A registered expiry observer. Keep it alive while notifications are wanted: `cancel()` (or
/// releasing the last reference) stops them.
public final class SessionExpiryObservation: Sendable {
    private let stop: @Sendable () -> Void

    init(stop: @escaping @Sendable () -> Void) { self.stop = stop }

    /// Stops the notifications; calling it again does nothing.
    public func cancel() { stop() }

    deinit { stop() }
}
