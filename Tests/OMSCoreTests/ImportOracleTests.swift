import Foundation
import OMSCore
import OMSProtocol
import TestSupport
import Testing
import WalletCrypto

/// Keys made by independent libraries (eth-account, solders) import to the addresses those libraries
/// compute, and none of them is left in plaintext anywhere in the core's home.
@Suite struct ImportOracleTests {
    /// Keys per family: 200 in process; over HTTP 40, since the addresses are the same computation and the
    /// wire only adds each request's cost (the full count would double the slowest import test).
    static func perFamily(_ transport: AccessTransport) -> Int { transport == .inProcess ? 200 : 40 }

    /// Prints `evm|solana <key hex> <address>` lines: half the keys in each family in a second form
    /// (Ethereum as 0x text, Solana as the 64-byte keypair).
    static let script = """
        import secrets, sys
        from eth_account import Account
        from solders.keypair import Keypair
        n = int(sys.argv[1])
        for i in range(n):
            key = secrets.token_bytes(32)
            print("evm", key.hex(), Account.from_key(key).address)
        for i in range(n):
            seed = secrets.token_bytes(32)
            pair = Keypair.from_seed(seed)
            material = seed if i % 2 == 0 else bytes(pair)
            print("solana", material.hex(), str(pair.pubkey()))
        """

    /// One key the oracle made, with the address eth-account or solders computes for it.
    struct OracleKey: Sendable {
        /// The oracle's output line.
        let index: Int
        let family: NetworkFamily
        let material: [UInt8]
        let address: String

        /// The key as it is imported: every other EVM key as 0x text, the rest as its bytes.
        var plaintext: SecretBytes {
            family == .evm && index % 2 == 1
                ? SecretBytes(Array("0x\(Base16.encode(material))".utf8)) : SecretBytes(material)
        }

        /// The 32 secret bytes that must not be found in plaintext in the core's home.
        var secret: [UInt8] { Array(material.prefix(32)) }
    }

    /// Runs ``script`` for `perFamily` keys of each family; a line not of the form `family key address`
    /// is recorded as an issue and left out.
    static func oracleKeys(perFamily: Int) throws -> [OracleKey] {
        let output = try PythonOracle.run(script, arguments: [String(perFamily)])
        let lines = output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        var keys: [OracleKey] = []
        for (index, fields) in lines.enumerated() {
            let family = fields.isEmpty ? NetworkFamily.unknown("") : NetworkFamily(wire: fields[0])
            guard fields.count == 3, family.isKnown, let material = Hex.decode(fields[1]) else {
                Issue.record("oracle line \(index) is not 'family key address'")
                continue
            }
            keys.append(OracleKey(index: index, family: family, material: material, address: fields[2]))
        }
        return keys
    }

    @Test(arguments: AccessTransport.allCases)
    func oracleKeysImportToTheOracleAddresses(_ transport: AccessTransport) async throws {
        let perFamily = Self.perFamily(transport)
        let items = try Self.oracleKeys(perFamily: perFamily)
        let secrets = items.map(\.secret)
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        var tally = VectorTally("import oracle (eth-account, solders) [\(transport)]")
        // Four credentials of the same account import in parallel (nonces increase per credential, so
        // each lane is sequential), which overlaps the core's synchronous commits.
        var lanes = [harness.client]
        for _ in 1..<4 { lanes.append(try await harness.core.signIn().0) }
        let verifier = harness.verifier
        let imported = try await withThrowingTaskGroup(of: [(Int, Wallet)].self) { group in
            for (lane, client) in lanes.enumerated() {
                let mine = items.filter { $0.index % lanes.count == lane }
                group.addTask {
                    var wallets: [(Int, Wallet)] = []
                    for key in mine {
                        let wallet = try await client.importWallet(
                            privateKey: key.plaintext, networkFamily: key.family, reference: "oracle \(key.index)",
                            suite: ImportSuite.allCases[key.index % ImportSuite.allCases.count], verifier: verifier)
                        wallets.append((key.index, wallet))
                    }
                    return wallets
                }
            }
            return try await group.reduce(into: [Int: Wallet]()) { all, lane in
                for (index, wallet) in lane { all[index] = wallet }
            }
        }
        for item in items {
            let wallet = imported[item.index]
            #expect(wallet?.address == item.address, "line \(item.index)")
            #expect(wallet?.keyOrigin == .imported && wallet?.networkFamily == item.family)
            tally.ran()
        }
        #expect(try await harness.wallets().count == items.count)
        tally.report()
        #expect(tally.ran == 2 * perFamily)
        #expect(items.filter { $0.family == .solana }.count == perFamily)

        let scan = SecretScan(secrets)
        #expect(scan.count == 2 * perFamily)
        let findings = try scan.findings(under: harness.core.home.url)
        #expect(findings.isEmpty, "plaintext keys in the home: \(findings.prefix(5))")
        // The scan does find what it looks for.
        let planted = Array("x\(Base16.encode(secrets[7]).uppercased())".utf8) + secrets[perFamily + 7]
        #expect(scan.findings(in: planted) == [1, 65])
    }
}
