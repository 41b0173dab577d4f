import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// Request bodies an attacker writes (issue 28): refused with InvalidRequest at the byte, quickly.
@Suite struct HostileBodyTests {
    @Test(arguments: TransportKind.allCases)
    func duplicateMembersAndDeepNestingAreRefusedAtTheirByte(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in
            let (client, _) = try await core.signIn()
            let wallet = try await core.createWallet(client)
            func refusal(_ method: WaasMethod, _ body: [UInt8]) async throws -> WaasError? {
                let reply = try await core.transport.send(try client.makeRequest(method, body: body))
                return WaasError(wireBody: reply.body, httpStatus: reply.status)
            }
            // Either member would name a wallet: the first used to win.
            let twice = #"{"walletId":"wal_nope","walletId":"\#(wallet.id)"}"#
            let duplicate = try await refusal(.useWallet, Array(twice.utf8))
            #expect(duplicate?.code == .invalidRequest)
            #expect(duplicate?.message == #"body: JSON: duplicate member name "walletId" at byte offset 23"#)

            let levels = 100_000
            let deep =
                Array(#"{"page":"#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: levels)
                + [UInt8](repeating: UInt8(ascii: "]"), count: levels) + Array("}".utf8)
            let clock = ContinuousClock()
            var nested: WaasError?
            let took = try await clock.measure { nested = try await refusal(.listWallets, deep) }
            #expect(nested?.code == .invalidRequest)
            #expect(nested?.message == "body: JSON: nesting deeper than 32 at byte offset 39")
            // Timed in process only: over HTTP a loaded 2-core machine adds the 200 KB upload's own time.
            if kind == .inProcess { #expect(took < .seconds(1), "took \(took)") }
            print("\(kind): a \(levels)-level body refused in \(took)")

            let latin1 = Array(#"{"walletId":"caf"#.utf8) + [0xE9] + Array(#""}"#.utf8)
            let invalid = try await refusal(.useWallet, latin1)
            #expect(invalid?.code == .invalidRequest)
            #expect(
                invalid?.message.hasPrefix("body: JSON: ") == true && invalid?.message.hasSuffix("offset 16") == true,
                "\(String(describing: invalid))")
        }
    }

    @Test func aNULByteInAReferenceIsRefused() async throws {
        try await CoreFixture.with { core in
            let (client, _) = try await core.signIn()
            let single = try await core.error(
                client, .createWallet, CreateWalletRequest(networkFamily: .evm, reference: "a\u{0}b"))
            #expect(single?.code == .invalidRequest)
            #expect(single?.message == "reference holds a NUL byte at byte 1")
            let batch = try await core.error(
                client, .createWallets, CreateWalletsRequest(networkFamily: .evm, references: ["ok", "nul\u{0}"]))
            #expect(batch?.message == "references[1] holds a NUL byte at byte 3")
            // Nothing was stored.
            let list = try await client.call(.listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
            #expect(list.wallets.isEmpty)
        }
    }
}
