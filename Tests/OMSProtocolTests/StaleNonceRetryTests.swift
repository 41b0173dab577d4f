import Foundation
import OMSProtocol
import Synchronization
import Testing
import WalletCrypto

/// The client sends a request refused for a stale nonce (7206) again under a fresh nonce, bounded
/// (`WaasClient.swift`); nothing else is resent.
@Suite struct StaleNonceRetryTests {
    /// A core's nonce rule alone: per credential, a nonce must be above the last one accepted.
    final class NonceCheckingTransport: WaasTransport {
        struct State {
            var last: [String: UInt64] = [:]
            var seen: [UInt64] = []
            var refuseFirst = 0
        }
        let state: Mutex<State>
        /// Whether a refusal names the last nonce, as the walletops core does.
        let namesLast: Bool
        let refusal: WaasError?

        init(namesLast: Bool = true, refuseFirst: Int = 0, refusal: WaasError? = nil) {
            state = Mutex(State(refuseFirst: refuseFirst))
            self.namesLast = namesLast
            self.refusal = refusal
        }

        var seen: [UInt64] { state.withLock { $0.seen } }

        func send(_ request: WaasHTTPRequest) async throws -> WaasHTTPResponse {
            let error: WaasError? = state.withLock { state in
                guard let header = request.header(SignatureHeader.name),
                    let parsed = try? SignatureHeader(parsing: header)
                else { return refusal }
                state.seen.append(parsed.nonce)
                if state.refuseFirst > 0 {
                    state.refuseFirst -= 1
                    return refusal ?? WaasError(.preconditionFailed, "stale nonce")
                }
                let last = state.last[parsed.credential] ?? 0
                guard parsed.nonce > last else {
                    return WaasError(
                        .preconditionFailed,
                        namesLast
                            ? "nonce \(parsed.nonce) is not above the last one used (\(last))" : "stale nonce")
                }
                state.last[parsed.credential] = parsed.nonce
                return nil
            }
            if let error {
                return WaasHTTPResponse(
                    status: error.code.httpStatus, body: try WaasClient.encodeBody(error.wireBody))
            }
            return WaasHTTPResponse(status: 200, body: Array(#"{"wallets":[]}"#.utf8))
        }
    }

    static let key = try! PublishableKey("pk_local_sdbx_test_key")

    static func client(_ transport: any WaasTransport, signer: any RequestSigner, clock: UInt64) -> WaasClient {
        WaasClient(
            transport: transport, publishableKey: key, signer: signer, nonces: NonceSource(now: { clock }))
    }

    @Test func aClientBehindAnotherOfTheSameCredentialCatchesUp() async throws {
        let transport = NonceCheckingTransport()
        let signer = P256RequestSigner(key: try P256.Signing.PrivateKey())
        let ahead = Self.client(transport, signer: signer, clock: 5_000_000)
        let behind = Self.client(transport, signer: signer, clock: 10)
        _ = try await ahead.call(.listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
        _ = try await behind.call(.listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
        // Refused once at 10, then sent a margin (4 ms on the first resend) above the nonce the core named.
        #expect(transport.seen == [5_000_000, 10, 5_000_005])
        // The next call of the behind client starts above it: no refusal.
        _ = try await behind.call(.listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
        #expect(transport.seen.count == 4)
    }

    /// Sends, before the first request it is given, one that `sibling` signs: a concurrent task of the same
    /// client whose later nonce reaches the core first.
    final class SiblingFirstTransport: WaasTransport {
        let core: NonceCheckingTransport
        let sibling = Mutex<(@Sendable () throws -> WaasHTTPRequest)?>(nil)

        init(_ core: NonceCheckingTransport) { self.core = core }

        func send(_ request: WaasHTTPRequest) async throws -> WaasHTTPResponse {
            if let first = sibling.withLock({ sibling in
                defer { sibling = nil }; return sibling
            }) {
                _ = try await core.send(try first())
            }
            return try await core.send(request)
        }
    }

    @Test func aRefusalCausedByTheClientsOwnLaterRequestKeepsItsNoncesOnTheClock() async throws {
        let core = NonceCheckingTransport()
        let transport = SiblingFirstTransport(core)
        let signer = P256RequestSigner(key: try P256.Signing.PrivateKey())
        let client = Self.client(transport, signer: signer, clock: 100)
        transport.sibling.withLock { $0 = { try client.makeRequest(.listWallets, body: Array("{}".utf8)) } }
        _ = try await client.call(.listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
        // 100 is refused behind its sibling's 101 and resent as 102, the next nonce: no margin, which would
        // move this client's nonces ahead of the clock for good (each concurrent refusal adding to it).
        #expect(core.seen == [101, 100, 102])
        _ = try await client.call(.listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
        #expect(core.seen.last == 103)
    }

    @Test func withoutAHintEachAttemptHasAFreshHigherNonceAndTheBoundHolds() async throws {
        let signer = P256RequestSigner(key: try P256.Signing.PrivateKey())
        let transport = NonceCheckingTransport(namesLast: false, refuseFirst: 3)
        _ = try await Self.client(transport, signer: signer, clock: 100).call(
            .listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
        let seen = transport.seen
        #expect(seen.count == 4)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "\(seen)")

        let always = NonceCheckingTransport(namesLast: false, refuseFirst: .max)
        await #expect(throws: WaasError(.preconditionFailed, "")) {
            _ = try await Self.client(always, signer: signer, clock: 100).call(
                .listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
        }
        #expect(always.seen.count == WaasClient.maximumNonceAttempts)
    }

    @Test func otherRefusalsAreNotResent() async throws {
        let signer = P256RequestSigner(key: try P256.Signing.PrivateKey())
        let transport = NonceCheckingTransport(refuseFirst: 1, refusal: WaasError(.unauthorized, "revoked"))
        await #expect(throws: WaasError(.unauthorized, "")) {
            _ = try await Self.client(transport, signer: signer, clock: 100).call(
                .listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
        }
        #expect(transport.seen.count == 1)
    }
}
