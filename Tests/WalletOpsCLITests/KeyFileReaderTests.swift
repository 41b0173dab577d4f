import Foundation
import KeyFormats
import TestSupport
import Testing
import WalletCrypto

@testable import WalletOpsCLI

/// Key vectors with a published address: (private key hex, lowercase address hex without 0x).
enum EthereumKeyVectors {
    static func load() throws -> [(name: String, key: String, address: String)] {
        var cases: [(String, String, String)] = []
        for file in [
            "vectors/ethereum_tests_KeyStoreTests_basic_tests.json",
            "vectors/geth_accounts_keystore_testdata_v1_test_vector.json",
        ] {
            let root = try #require(try Fixtures.json(file) as? [String: [String: Any]])
            for (name, entry) in root.sorted(by: { $0.key < $1.key }) {
                guard let key = entry["priv"] as? String, let json = entry["json"] as? [String: Any],
                    let address = json["address"] as? String
                else { continue }
                cases.append(("\(file):\(name)", key, address.lowercased()))
            }
        }
        return cases
    }
}

/// RFC 8032 section 7.1 seeds and public keys.
enum Ed25519Vectors {
    static func load() throws -> [(name: String, seed: [UInt8], publicKey: [UInt8])] {
        let root = try #require(try Fixtures.json("vectors/ed25519_rfc8032.json") as? [String: Any])
        let vectors = try #require(root["vectors"] as? [[String: String]])
        return try vectors.map { vector in
            guard let name = vector["name"], let seed = vector["secret_key_seed"].flatMap(Hex.decode),
                let publicKey = vector["public_key"].flatMap(Hex.decode)
            else { throw TestFailure("ed25519_rfc8032.json: malformed vector") }
            return (name, seed, publicKey)
        }
    }
}

@Suite struct KeyFileReaderTests {
    let directory: URL
    let reader: KeyFileReader

    init() throws {
        directory = try makeTemporaryDirectory()
        reader = KeyFileReader(
            context: Context(
                standardOutput: CapturedOutput(), standardError: CapturedOutput(), currentDirectory: directory))
    }

    func write(_ bytes: [UInt8], name: String = "key") throws -> String {
        try Data(bytes).write(to: directory.appendingPathComponent(name))
        return name
    }

    func write(_ text: String, name: String = "key") throws -> String { try write(Array(text.utf8), name: name) }

    /// The error `body` throws, which must be a CLIError.
    func error(_ body: () throws -> Void) -> CLIError? {
        do {
            try body()
            return nil
        } catch let error as CLIError {
            return error
        } catch {
            Issue.record("unexpected error type \(type(of: error))")
            return nil
        }
    }

    @Test func ethereumFormats() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let vectors = try EthereumKeyVectors.load()
        var tally = VectorTally("KeyStoreTests basic_tests.json + geth v1 (priv with address)")
        for vector in vectors {
            let raw = try #require(Hex.decode(vector.key))
            let forms: [[UInt8]] = [
                Array(vector.key.utf8), Array("0x\(vector.key)\n".utf8),
                Array("  0X\(vector.key.uppercased())\r\n".utf8),
                Array("\t\(vector.key) ".utf8), raw,
                // Vertical tab and form feed are ASCII whitespace too (KeyFormats' rule for every key text).
                Array("\u{0B}\(vector.key)\u{0C}\n".utf8),
            ]
            for form in forms {
                let key = try reader.key(path: try write(form), type: .ethereum)
                #expect(key.address.lowercased() == "0x" + vector.address, "\(vector.name)")
            }
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 2)
    }

    @Test func solanaFormats() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var tally = VectorTally("ed25519_rfc8032.json")
        for vector in try Ed25519Vectors.load() {
            let keypair = vector.seed + vector.publicKey
            let expected = ReferenceBase58.encode(vector.publicKey)
            let forms: [[UInt8]] = [
                Array(ReferenceBase58.encode(vector.seed).utf8),
                Array("\n\(ReferenceBase58.encode(keypair))\n".utf8),
                Array("[\(keypair.map(String.init).joined(separator: ","))]\n".utf8),
                Array("[ \(keypair.map(String.init).joined(separator: ", ")) ]".utf8),
                vector.seed, keypair,
            ]
            for form in forms {
                #expect(try reader.key(path: try write(form), type: .solana).address == expected, "\(vector.name)")
            }
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 5)
    }

    @Test func standardInput() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let vector = try #require(try EthereumKeyVectors.load().first)
        let stdinReader = KeyFileReader(
            context: Context(
                standardOutput: CapturedOutput(), standardError: CapturedOutput(),
                standardInput: BytesInput(Array("\(vector.key)\n".utf8))))
        #expect(try stdinReader.key(path: "-", type: .ethereum).address.lowercased() == "0x" + vector.address)
    }

    @Test func ethereumErrorsSayWhatIsWrongWithoutTheKey() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = "05a4d3eb46c742cb8850440145ce70cbc80b59f891cf5f50fd3e9c280b50c4e4"
        let invalid = try #require(try Fixtures.json("vectors/eip55_and_invalid_keys.json") as? [String: Any])
        let scalars = try #require(invalid["invalid_private_keys_hex"] as? [String: String])
        let cases: [(String, String)] = [
            (
                String(key.dropLast()),
                "key file key: expected 64 hex digits (optionally after 0x), found 63 characters"
            ),
            (
                "0x" + key + "00",
                "key file key: expected 64 hex digits (optionally after 0x), found 66 characters"
            ),
            (
                String(key.prefix(10)) + "g" + String(key.dropFirst(11)),
                "key file key: expected 64 hex digits, the character at position 11 is not a hex digit"
            ),
            (
                String(key.prefix(31)) + "\n",
                "key file key: expected 64 hex digits (optionally after 0x), found 31 characters"
            ),
            ("   \n", "key file key: the private key is empty"),
            (try #require(scalars["zero"]), "key file key: the key is zero; a secp256k1 key must be in [1, n-1]"),
            (
                try #require(scalars["n"]),
                "key file key: the key is not below the secp256k1 group order n; it must be in [1, n-1]"
            ),
            (
                try #require(scalars["2^256-1"]),
                "key file key: the key is not below the secp256k1 group order n; it must be in [1, n-1]"
            ),
        ]
        for (content, message) in cases {
            let path = try write(content)
            let error = error { _ = try reader.key(path: path, type: .ethereum) }
            #expect(error?.code == .dataError)
            #expect(error?.message == message)
        }
        let binary = error {
            _ = try reader.key(path: try write([UInt8](repeating: 0xC3, count: 33)), type: .ethereum)
        }
        #expect(
            binary?.message
                == "key file key: expected 64 hex digits, found a byte that is not printable ASCII at position 1")
    }

    @Test func solanaErrorsSayWhatIsWrongWithoutTheKey() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let vector = try #require(try Ed25519Vectors.load().first)
        var mismatched = vector.seed + vector.publicKey
        mismatched[63] ^= 1
        let seedText = ReferenceBase58.encode(vector.seed)
        let cases: [([UInt8], String)] = [
            (
                Array(ReferenceBase58.encode(Array(vector.seed.prefix(31))).utf8),
                "key file key: base58 text decodes to 31 bytes, expected 32 (a seed) or 64 (a keypair)"
            ),
            (
                Array((String(seedText.prefix(5)) + "0" + String(seedText.dropFirst(6))).utf8),
                "key file key: expected base58 text, the character at position 6 is not in the base58 alphabet"
            ),
            (
                Array("[1,2,3]".utf8),
                "key file key: the keypair array has 3 numbers; expected 64 (seed || public key)"
            ),
            (
                Array(("[" + [String](repeating: "256", count: 64).joined(separator: ",") + "]").utf8),
                "key file key: not a Solana keypair file (a JSON array of 64 numbers 0-255): item 1 is not an integer from 0 to 255"
            ),
            (
                Array(("[" + [String](repeating: "1", count: 64).joined(separator: ",")).utf8),
                "key file key: not a Solana keypair file (a JSON array of 64 numbers 0-255): the array is not closed with ]"
            ),
            (
                mismatched,
                "key file key: the public half of the 64-byte keypair does not match the public key derived from its seed"
            ),
            (
                Array((Base16.encode(vector.seed) + "\n").utf8),
                "key file key: found 64 hex digits, not a Solana key: expected base58 text of a 32-byte seed or a 64-byte keypair"
            ),
            (
                [0xFF, 0x00] + [UInt8](repeating: 0x41, count: 40),
                "key file key: expected base58 text, found a byte that is not printable ASCII at position 1"
            ),
        ]
        // JSON numbers have no leading zeros: the Solana CLI never writes them, so "097" is refused.
        let pair = vector.seed + vector.publicKey
        let padded = pair.map { String(format: "%03d", $0) }
        let firstPadded = try #require(pair.firstIndex { $0 < 100 }) + 1
        // base58 of exactly 32 characters (here 31 zero bytes and a 1) is ambiguous with raw bytes.
        let ambiguous = String(repeating: "1", count: 31) + "2"
        let refusedByKeyFormats: [([UInt8], String)] = [
            (
                Array(("[" + padded.joined(separator: ",") + "]").utf8),
                "key file key: not a Solana keypair file (a JSON array of 64 numbers 0-255): item \(firstPadded) is not an integer from 0 to 255"
            ),
            (
                Array((ambiguous + "\n").utf8),
                "key file key: base58 text of exactly 32 characters is ambiguous with raw bytes or hex and is refused"
            ),
        ]
        var textCases = cases + refusedByKeyFormats
        // Text of raw-key length (32 or 64 bytes) is parsed as text, never as raw key bytes.
        textCases.append((Array(Base16.encode(vector.seed).utf8), cases[6].1))
        textCases.append(
            (
                Array(String(seedText.prefix(31) + "\n").utf8),
                "key file key: base58 text decodes to 23 bytes, expected 32 (a seed) or 64 (a keypair)"
            ))
        for (content, message) in textCases {
            let path = try write(content)
            let error = error { _ = try reader.key(path: path, type: .solana) }
            #expect(error?.code == .dataError)
            #expect(error?.message == message)
        }
    }

    @Test func unreadableEmptyAndOversizedFiles() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = error { _ = try reader.key(path: "no-such-file", type: .ethereum) }
        #expect(missing?.code == .ioError)
        #expect(missing?.message == "key file no-such-file: cannot open: No such file or directory")
        let folder = error { _ = try reader.key(path: ".", type: .ethereum) }
        #expect(folder?.code == .ioError)
        #expect(folder?.message.hasSuffix("is a directory") == true)
        let empty = error { _ = try reader.key(path: try write(""), type: .solana) }
        #expect(empty?.message == "key file key: empty, expected a private key")
        let large = error {
            _ = try reader.key(path: try write([UInt8](repeating: 0x31, count: 5000)), type: .solana)
        }
        #expect(large?.code == .dataError)
        #expect(large?.message == "key file key: too large for a key file (more than 4096 bytes)")
        let stdinReader = KeyFileReader(
            context: Context(
                standardOutput: CapturedOutput(), standardError: CapturedOutput(),
                standardInput: BytesInput([UInt8](repeating: 0x31, count: 5000))))
        let largeInput = error { _ = try stdinReader.key(path: "-", type: .ethereum) }
        #expect(largeInput?.message == "standard input: too large for a key file (more than 4096 bytes)")
    }

    @Test func keyShapeHeuristics() {
        let hex = String(repeating: "ab", count: 32)
        #expect(KeyMaterialGuard.looksLikePrivateKey(hex))
        #expect(KeyMaterialGuard.looksLikePrivateKey("0x" + hex + "\n"))
        #expect(KeyMaterialGuard.looksLikePrivateKey(hex + hex))
        #expect(KeyMaterialGuard.looksLikePrivateKey(ReferenceBase58.encode([UInt8](repeating: 7, count: 64))))
        #expect(!KeyMaterialGuard.looksLikePrivateKey(String(hex.dropLast())))
        #expect(!KeyMaterialGuard.looksLikePrivateKey("0x52908400098527886E0F7030069857D2E4169EE7"))  // an address
        #expect(!KeyMaterialGuard.looksLikePrivateKey("keys/alice.key"))
        #expect(!KeyMaterialGuard.looksLikePrivateKey("[1,2,3]"))
        #expect(!KeyMaterialGuard.looksLikePrivateKey(""))
    }
}

@Suite struct ReferenceBase58Tests {
    /// The test's own base58 encoder must agree with Bitcoin Core's vectors before it judges the product.
    @Test func agreesWithBitcoinCore() throws {
        let cases = try #require(try Fixtures.json("vectors/bitcoin_core_base58_encode_decode.json") as? [[String]])
        var tally = VectorTally("bitcoin_core_base58_encode_decode.json")
        for pair in cases {
            #expect(ReferenceBase58.encode(try #require(Hex.decode(pair[0]))) == pair[1])
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 21)
    }
}
