import Foundation
import TestSupport
import Testing
import WalletCrypto

#if canImport(Glibc)
import Glibc
#endif

/// `walletops wallet import` through the built binary: hex, base58 and keystore V3 keys from the
/// checked-in vectors import to their addresses, a duplicate and a bad attestation are refused, a key
/// on the command line is refused, and no key or password shows in any output or any file of the home.
@Suite(.serialized) struct WalletImportEndToEndTests {
    typealias Scratch = OperatorEndToEndTests.Scratch

    /// A key under test and every spelling of it that must never leak.
    struct Secret {
        var name: String
        var spellings: [[UInt8]]
    }

    /// Everything every run printed, to scan at the end.
    final class Transcript {
        var outputs: [String] = []
    }

    static func run(
        _ arguments: [String], home: URL, core: URL?, transcript: Transcript, standardInput: [UInt8] = [],
        expect status: Int32 = 0
    ) throws -> CLIResult {
        var full = arguments + ["--home", home.path]
        if let core { full += ["--core", core.absoluteString] }
        let result = try BuiltBinary.run(full, standardInput: standardInput)
        #expect(result.status == status, "walletops \(arguments.joined(separator: " "))\n\(result)")
        transcript.outputs += [result.standardOutput, result.standardError]
        return result
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }

    static func hexSpellings(_ bytes: [UInt8]) -> [[UInt8]] {
        let hex = Hex.encode(bytes)
        return [bytes, Array(hex.utf8), Array(hex.uppercased().utf8)]
    }

    static func tour(home: URL, core: URL?, scratch: Scratch) throws {
        let transcript = Transcript()
        var secrets: [Secret] = []
        var tally = VectorTally("import keys (random hex, ed25519_rfc8032, ethereum_tests keystore mycrypto)")
        _ = try run(
            ["login", "--dev", "--email", "importer@example.com", "--lifetime", "3600"], home: home, core: core,
            transcript: transcript)

        // 1. A hex key file (a fresh random key; its address computed by WalletCrypto).
        let ethereum = Secp256k1.PrivateKey.generate()
        let ethereumBytes = ethereum.secretBytes.unsafeCopy()
        secrets.append(Secret(name: "hex key", spellings: hexSpellings(ethereumBytes)))
        let hexFile = scratch.file("eth.key")
        try Data(("0x" + Hex.encode(ethereumBytes) + "\n").utf8).write(to: hexFile)
        let imported = try run(
            [
                "wallet", "import", "--type", "ethereum", "--key-file", hexFile.path, "--reference", "desk 1",
                "--format", "hex",
            ], home: home, core: core, transcript: transcript)
        let lines = OperatorEndToEndTests.lines(imported.standardOutput)
        #expect(lines.count == 3 && lines[0].hasPrefix("ID "), "\(imported)")
        let listed = try #require(
            try JSONSerialization.jsonObject(
                with: Data(
                    try run(["wallet", "list", "--format", "json"], home: home, core: core, transcript: transcript)
                        .standardOutput.utf8)) as? [[String: Any]])
        let wallet = listed.first { $0["id"] as? String == lines.last }
        #expect(wallet?["address"] as? String == ethereum.ethereumAddress.checksummed)
        #expect(wallet?["keyOrigin"] as? String == "imported")
        #expect(wallet?["reference"] as? String == "desk 1")
        #expect(lines.last?.hasPrefix("wal_") == true && lines.count == 3 && lines[1].hasPrefix(lines.last ?? "-"))
        tally.ran()

        // 2. The same key again, this time from standard input: AddressAlreadyImported, exit 1.
        let again = try run(
            ["wallet", "import", "--type", "ethereum", "--key-file", "-"], home: home, core: core,
            transcript: transcript, standardInput: Array(Hex.encode(ethereumBytes).utf8), expect: 1)
        #expect(again.standardError.contains("AddressAlreadyImported"), "\(again)")
        #expect(again.standardOutput == "")

        // 3. A base58 Solana keypair (seed || public key) of RFC 8032 TEST 1; the address is the vector's key.
        let vectors = try #require(
            (try Fixtures.json("vectors/ed25519_rfc8032.json") as? [String: Any])?["vectors"] as? [[String: Any]])
        let first = try #require(vectors.first { $0["name"] as? String == "TEST 1" })
        let seedHex = try #require(first["secret_key_seed"] as? String)
        let publicKeyHex = try #require(first["public_key"] as? String)
        let seed = try #require(Hex.decode(seedHex))
        let publicKey = try #require(Hex.decode(publicKeyHex))
        let base58 = Base58.encode(seed + publicKey)
        secrets.append(Secret(name: "solana seed", spellings: hexSpellings(seed) + [Array(base58.utf8)]))
        let solanaFile = scratch.file("sol.key")
        try Data((base58 + "\n").utf8).write(to: solanaFile)
        let solana = try run(
            ["wallet", "import", "--type", "solana", "--key-file", solanaFile.path, "--format", "base58"], home: home,
            core: core, transcript: transcript)
        let solanaLines = OperatorEndToEndTests.lines(solana.standardOutput)
        #expect(solanaLines.count == 3 && solanaLines[1].contains(" solana "), "\(solana)")
        #expect(solanaLines[1].contains(" \(Base58.encode(publicKey)) ") && solanaLines[1].hasSuffix(" imported"))
        tally.ran()

        // 4. A keystore V3 (scrypt) with its password in a file.
        let keystores = try #require(
            try Fixtures.json("vectors/ethereum_tests_KeyStoreTests_basic_tests.json") as? [String: Any])
        let mycrypto = try #require(keystores["mycrypto"] as? [String: Any])
        let password = try #require(mycrypto["password"] as? String)
        let privHex = try #require(mycrypto["priv"] as? String)
        let priv = try #require(Hex.decode(privHex))
        secrets.append(Secret(name: "keystore key", spellings: hexSpellings(priv)))
        secrets.append(Secret(name: "keystore password", spellings: [Array(password.utf8)]))
        let keystoreFile = scratch.file("wallet.json")
        try JSONSerialization.data(withJSONObject: try #require(mycrypto["json"])).write(to: keystoreFile)
        let passwordFile = scratch.file("password.txt")
        try Data((password + "\n").utf8).write(to: passwordFile)
        let expected = try Secp256k1.PrivateKey(SecretBytes(priv)).ethereumAddress
        let keystore = try run(
            [
                "wallet", "import", "--type", "ethereum", "--key-file", keystoreFile.path, "--password-file",
                passwordFile.path,
            ], home: home, core: core, transcript: transcript)
        #expect(keystore.standardOutput.contains(" \(expected.checksummed) "), "\(keystore)")
        let hint = (mycrypto["json"] as? [String: Any])?["address"] as? String
        #expect(String(expected.lowercased.dropFirst(2)) == hint)
        tally.ran()
        tally.report()
        #expect(tally.ran == 3)

        // A wrong password: a clear error, nothing about the key.
        let wrongFile = scratch.file("wrong.txt")
        try Data("not it".utf8).write(to: wrongFile)
        let wrong = try run(
            [
                "wallet", "import", "--type", "ethereum", "--key-file", keystoreFile.path, "--password-file",
                wrongFile.path,
            ], home: home, core: core, transcript: transcript, expect: 1)
        #expect(wrong.standardError.contains("wrong password"), "\(wrong)")

        // A malformed key: exit 65, says what is wrong, shows none of it.
        let shortFile = scratch.file("short.key")
        try Data(String(Hex.encode(ethereumBytes).dropLast()).utf8).write(to: shortFile)
        let short = try run(
            ["wallet", "import", "--type", "ethereum", "--key-file", shortFile.path], home: home, core: core,
            transcript: transcript, expect: 65)
        #expect(short.standardError.hasPrefix("Error: key file \(shortFile.path): "), "\(short)")

        // A key on the command line: refused by the parser (64), never echoed.
        let typed = try run(
            ["wallet", "import", "--type", "ethereum", "--key-file", Hex.encode(ethereumBytes)], home: home,
            core: core, transcript: transcript, expect: 64)
        #expect(typed.standardError.contains("looks like a private key"), "\(typed)")

        // An attestation that does not chain to the pinned root: exit 1, nothing sent.
        let other = Secp256k1.PrivateKey.generate()
        secrets.append(Secret(name: "unsent key", spellings: hexSpellings(other.secretBytes.unsafeCopy())))
        let otherFile = scratch.file("other.key")
        try Data(Hex.encode(other.secretBytes.unsafeCopy()).utf8).write(to: otherFile)
        let refused = try run(
            [
                "wallet", "import", "--type", "ethereum", "--key-file", otherFile.path, "--attestation-root",
                Fixtures.url("vectors/aws_nitro_enclaves_root_g1.pem").path,
            ], home: home, core: core,
            transcript: transcript, expect: 1)
        #expect(refused.standardError.contains("attestation did not verify"), "\(refused)")
        #expect(refused.standardError.contains("no key material was sent"))
        // With the core's own root, printed by `core attestation-root`, the same key imports.
        let root = try run(["core", "attestation-root"], home: home, core: nil, transcript: transcript)
        #expect(root.standardOutput.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        let rootFile = scratch.file("root.pem")
        try Data(root.standardOutput.utf8).write(to: rootFile)
        let pinned = try run(
            [
                "wallet", "import", "--type", "ethereum", "--key-file", otherFile.path, "--attestation-root",
                rootFile.path,
            ], home: home, core: core, transcript: transcript)
        #expect(pinned.standardOutput.contains(other.ethereumAddress.checksummed))

        // No key and no password in any output nor in any file of the home.
        var scanned = 0
        let enumerator = try #require(FileManager.default.enumerator(at: home, includingPropertiesForKeys: nil))
        var files: [(String, [UInt8])] = []
        for case let url as URL in enumerator {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            files.append((url.lastPathComponent, [UInt8](try Data(contentsOf: url))))
        }
        files += transcript.outputs.enumerated().map { ("output \($0.offset)", Array($0.element.utf8)) }
        for secret in secrets {
            for spelling in secret.spellings {
                for (name, bytes) in files {
                    #expect(!contains(bytes, spelling), "\(secret.name) found in \(name)")
                    scanned += 1
                }
            }
        }
        #expect(files.count >= 4 && scanned > 0)
    }

    @Test func embeddedCore() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        _ = try OperatorEndToEndTests.run(["core", "init"], home: scratch.home)
        try Self.tour(home: scratch.home, core: nil, scratch: scratch)
    }

    @Test func servedCore() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        _ = try OperatorEndToEndTests.run(["core", "init"], home: scratch.home)
        let server = try ServedBinary(home: scratch.home, listen: "127.0.0.1:0")
        try Self.tour(home: scratch.home, core: server.baseURL, scratch: scratch)
        #expect(server.stop(signal: SIGTERM) == 0, "\(server.standardError)")
    }
}
