import Foundation
import OMSProtocol
import Synchronization
import Testing
import WalletCrypto

@testable import OMSCore

/// A client with several batches in flight signs its requests in one order, and they can reach the core
/// in another. An ImportWallets signed before a GetRecipientKey that reached the core first would fail at
/// its nonce write, queued behind the other's: it must be refused at once, not after the core prepared
/// all of its keys and waited for the writer.
@Suite struct ImportNonceOrderTests {
    @Test func anImportOvertakenByARecipientKeyRequestIsRefusedAtOnce() async throws {
        let harness = try await ImportHarness()
        defer { harness.remove() }
        let key = try await harness.client.recipientKey(verifier: harness.verifier)
        let batch = try harness.sealedBatch(
            [(SecretBytes((0..<32).map { UInt8($0 + 1) }), .solana, "overtaken")], keyId: key.keyId,
            publicKey: key.publicKey)
        // Signed now, sent below: its nonce is lower than the GetRecipientKey's signed after it.
        let overtaken = try harness.client.makeRequest(
            .importWallets, body: WaasClient.encodeBody(batch),
            extraHeaders: [(Attestation.nonceHeader, CanonicalBase64.encode(Attestation.makeNonce()))])

        // Hold the writer, so that every write queued from here waits.
        let held = await HeldWriter(harness.core.service.store, timeoutSeconds: 60)
        let client = harness.client
        let verifier = harness.verifier
        let service = harness.core.service
        let admittedBefore = service.admittedNonces.withLock { $0.values.max() ?? 0 }
        let later = Task { try await client.recipientKey(verifier: verifier) }
        // Its write is queued behind the held one once the core admitted its nonce (the only request that
        // can raise the admitted nonces now): wait for that, 30 s at most.
        for _ in 0..<3_000 where service.admittedNonces.withLock({ $0.values.max() ?? 0 }) <= admittedBefore {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(
            service.admittedNonces.withLock { $0.values.max() ?? 0 } > admittedBefore,
            "the recipient key request was admitted")

        // Answered while the writer is still held: refused on the admitted nonces, not at its nonce write.
        let wire = harness.wire
        let answered = Answered()
        let answer = Task {
            defer { answered.flag.store(true, ordering: .releasing) }
            return try await wire.send(overtaken)
        }
        for _ in 0..<100 where !answered.flag.load(ordering: .acquiring) {
            try await Task.sleep(for: .milliseconds(100))
        }
        let answeredInTime = answered.flag.load(ordering: .acquiring)
        held.release()
        #expect(try await held.ticket.value())
        #expect(answeredInTime, "the overtaken import waited for the writer")
        let response = try await answer.value
        let error = WaasError(wireBody: response.body, httpStatus: response.status)
        #expect(error?.code == .preconditionFailed, "refused for its nonce: \(response.status)")
        // The recipient key request went through, and a retried import under a fresh nonce would too.
        let fresh = try await later.value
        #expect(!fresh.keyId.isEmpty)
        #expect(try await harness.wallets().isEmpty, "nothing of the overtaken import was stored")
    }

    private final class Answered: Sendable {
        let flag = Atomic<Bool>(false)
    }
}
