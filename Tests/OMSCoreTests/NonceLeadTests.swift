import Foundation
import OMSProtocol
import Testing

@testable import OMSCore

/// A nonce far ahead of the server's clock is refused before it is recorded (issue 28): one request
/// signed with 2^63-1 used to be accepted and lock its credential out for good.
@Suite struct NonceLeadTests {
    @Test func theLeadIsBoundedAtTenMinutes() throws {
        let now: UInt64 = 1_796_100_000_000
        try WaasService.checkNonceLead(now + 600_000, nowMilliseconds: now)
        try WaasService.checkNonceLead(1, nowMilliseconds: now)
        #expect(throws: WaasError(.invalidRequest, "")) {
            try WaasService.checkNonceLead(now + 600_001, nowMilliseconds: now)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aFarFutureNonceIsRefusedAndTheCredentialKeepsWorking(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let (client, _) = try await core.signIn()
            let signer = try #require(client.signer)
            let hostile = client.signing(with: signer, nonces: NonceSource(now: { UInt64(Int64.max) }))
            let refused = try await core.error(hostile, .listWallets, ListWalletsRequest())
            #expect(refused?.code == .invalidRequest)
            #expect(refused?.code.httpStatus == 400)
            #expect(
                refused?.message.hasPrefix(
                    "nonce 9223372036854775807 is more than 600 s ahead of the server's clock") == true,
                "\(String(describing: refused))")
            // Nine minutes ahead is within the window; the credential's own clock-based nonces still work after.
            let ahead = client.signing(
                with: signer, nonces: NonceSource(now: { UInt64(Date().timeIntervalSince1970 * 1000) + 540_000 }))
            #expect(try await core.error(ahead, .listWallets, ListWalletsRequest()) == nil)
            let wallets = try await client.call(.listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
            #expect(wallets.wallets.isEmpty)
        }
    }
}
