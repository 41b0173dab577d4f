import Foundation
import KeyFormats
import TestSupport
import Testing
import WalletCrypto

@testable import WalletOpsCLI

/// The parts of `wallet import` and the remote commands that need no core: key formats read from
/// standard input, the option rules checked before any request, grant summaries and tables.
@Suite struct WalletImportCommandTests {
    static func context(_ input: [UInt8]) -> Context {
        Context(standardOutput: CapturedOutput(), standardError: CapturedOutput(), standardInput: BytesInput(input))
    }

    /// Solana CLI JSON and raw bytes from standard input yield the vector's address (RFC 8032 7.1).
    @Test func solanaJSONAndRawKeysFromStandardInput() throws {
        let vectors = try #require(
            (try Fixtures.json("vectors/ed25519_rfc8032.json") as? [String: Any])?["vectors"] as? [[String: Any]])
        var tally = VectorTally("ed25519_rfc8032.json (wallet import solana-json, raw)")
        for vector in vectors {
            let seedHex = try #require(vector["secret_key_seed"] as? String)
            let publicHex = try #require(vector["public_key"] as? String)
            let seed = try #require(Hex.decode(seedHex))
            let publicKey = try #require(Hex.decode(publicHex))
            let json = Array(("[" + (seed + publicKey).map(String.init).joined(separator: ",") + "]\n").utf8)
            let fromJSON = try WalletImportCommand.readKey(
                path: "-", type: .solana, format: .solanaJSON, password: nil, context: Self.context(json))
            #expect(fromJSON.address == Base58.encode(publicKey))
            let fromRaw = try WalletImportCommand.readKey(
                path: "-", type: .solana, format: .raw, password: nil, context: Self.context(seed))
            #expect(fromRaw.address == Base58.encode(publicKey))
            // A keypair whose public half is not its seed's: refused, without the key in the message.
            var wrong = seed + publicKey
            wrong[40] ^= 1
            do {
                _ = try WalletImportCommand.readKey(
                    path: "-", type: .solana, format: .raw, password: nil, context: Self.context(wrong))
                Issue.record("a mismatched keypair was accepted")
            } catch let error as CLIError {
                #expect(error.code == .dataError && error.message.hasPrefix("standard input: "))
                #expect(!error.message.contains(seedHex) && !error.message.contains(Base58.encode(seed)))
            }
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == vectors.count && tally.ran >= 4)
    }

    @Test func formatsFollowTheTypeAndTheFileName() throws {
        let invocation = try CommandLineParser(root: WalletOps.root).parse(
            ["wallet", "import", "--type", "ethereum", "--key-file", "k"])
        guard case .run(_, let parsed) = invocation else { throw TestFailure("not a command to run: \(invocation)") }
        #expect(try WalletImportCommand.format(parsed, type: .ethereum, path: "a.json") == .keystore)
        #expect(try WalletImportCommand.format(parsed, type: .ethereum, path: "a.key") == .hex)
        #expect(try WalletImportCommand.format(parsed, type: .solana, path: "id.JSON") == .solanaJSON)
        #expect(try WalletImportCommand.format(parsed, type: .solana, path: "-") == .base58)
    }

    @Test func optionRulesAreUsageErrorsBeforeAnyRequest() async throws {
        let home = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let cases: [([String], String)] = [
            (["--type", "solana", "--format", "hex"], "--format hex is not a format of solana keys"),
            (["--type", "ethereum", "--format", "keystore"], "a keystore needs its password"),
            (
                ["--type", "ethereum", "--format", "keystore", "--password-file", "p", "--password-env", "P"],
                "give one of --password-file and --password-env"
            ),
            (
                ["--type", "ethereum", "--password-env", "P"],
                "--password-file and --password-env are for --format keystore only"
            ),
        ]
        for (arguments, message) in cases {
            let result = await runInProcess(
                ["wallet", "import", "--key-file", "k", "--home", home.path] + arguments)
            #expect(result.status == 64, "\(arguments): \(result)")
            #expect(result.standardError.hasPrefix("Error: \(message)"), "\(result)")
        }
        let noGrant = await runInProcess(
            [
                "remote", "authorize", "--credential", "0x" + String(repeating: "1", count: 40), "--network", "amoy",
                "--native-to", "0x" + String(repeating: "2", count: 40), "--home", home.path,
            ])
        #expect(
            noGrant.status == 64 && noGrant.standardError.hasPrefix("Error: --native-to and --native-limit go together")
        )
    }

    @Test func grantsAreSummarizedExactly() {
        let huge = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
        #expect(GrantText.summary(.nativeTransfer(to: "0xab", limit: huge)) == "native to 0xab limit \(huge)")
        #expect(GrantText.summary(.erc20Transfer(token: "0xt", limit: "5")) == "erc20 0xt to * limit 5")
        #expect(
            GrantText.summary([.erc20Transfer(token: "0xt", to: "0xr", limit: "5", cumulative: false)])
                == "erc20 0xt to 0xr limit 5 (per transfer)")
        let table = RecordTable(headers: ["a", "bb"], rows: [["x,y", "1"], ["long", "2"]], objects: [])
        #expect(table.render(as: .csv) == "a,bb\n\"x,y\",1\nlong,2\n")
        #expect(table.render(as: .table) == "A     BB\nx,y   1\nlong  2\n")
        #expect(table.render(as: .json) == "[]\n")
    }
}
