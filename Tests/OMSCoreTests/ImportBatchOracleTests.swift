import Foundation
import OMSCore
import OMSProtocol
import TestSupport
import Testing
import WalletCrypto

/// Keys made by independent libraries (eth-account, solders) imported through `Waas/ImportWallets`
/// land at the addresses those libraries compute, and none is left in plaintext in the core's home.
@Suite struct ImportBatchOracleTests {
    /// Keys per family: 300 in process (one batch of 600, split over the cores), 100 over HTTP.
    static func perFamily(_ transport: AccessTransport) -> Int { transport == .inProcess ? 300 : 100 }

    @Test(arguments: AccessTransport.allCases, [ImportSuite.default, .x25519SHA256ChaCha20Poly1305])
    func oracleKeysImportInOneBatch(_ transport: AccessTransport, _ suite: ImportSuite) async throws {
        let perFamily = Self.perFamily(transport)
        let expected = try ImportOracleTests.oracleKeys(perFamily: perFamily)
        let secrets = expected.map(\.secret)
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        var tally = VectorTally("batched import oracle (eth-account, solders) [\(transport), \(suite.rawValue)]")
        let items = expected.map {
            ImportItem(privateKey: $0.plaintext, networkFamily: $0.family, reference: "oracle \($0.index)")
        }
        let results = try await harness.client.importWallets(items, suite: suite, verifier: harness.verifier)
        #expect(results.count == expected.count)
        for (index, (result, want)) in zip(results, expected).enumerated() {
            guard case .imported(let wallet) = result else {
                Issue.record("line \(index): \(result)")
                continue
            }
            #expect(wallet.address == want.address && wallet.networkFamily == want.family, "line \(index)")
            #expect(wallet.reference == "oracle \(index)")
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 2 * perFamily)
        #expect(try await harness.wallets().map(\.address) == expected.map(\.address))

        let scan = SecretScan(secrets)
        #expect(scan.count == 2 * perFamily)
        let findings = try scan.findings(under: harness.core.home.url)
        #expect(findings.isEmpty, "plaintext keys in the home: \(findings.prefix(5))")
    }
}
