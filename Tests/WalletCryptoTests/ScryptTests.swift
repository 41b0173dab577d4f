import Foundation
import TestSupport
import Testing

@testable import WalletCrypto

@Suite struct ScryptTests {
    /// RFC 7914 section 12: all four vectors, the last at n = 2^20 (1 GiB, above the default bound).
    @Test func rfc7914() throws {
        var tally = VectorTally("RFC 7914 section 12")
        let cases: [(password: String, salt: String, n: Int, r: Int, p: Int, dk: String)] = [
            (
                "", "", 16, 1, 1,
                "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"
            ),
            (
                "password", "NaCl", 1024, 8, 16,
                "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
            ),
            (
                "pleaseletmein", "SodiumChloride", 16384, 8, 1,
                "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"
            ),
            (
                "pleaseletmein", "SodiumChloride", 1_048_576, 8, 1,
                "2101cb9b6a511aaeaddbbe09cf70f881ec568d574a2ffd4dabe5ee9820adaa478e56fd8f4ba5d09ffa1c6d927c40f4c337304049e8a952fbcbf45c6fa77a41a4"
            ),
        ]
        for vector in cases {
            let derived = try Scrypt.derive(
                password: SecretBytes(Array(vector.password.utf8)), salt: Array(vector.salt.utf8), n: vector.n,
                r: vector.r, p: vector.p, length: 64, maxMemory: 1 << 31)
            #expect(Hex.encode(derived.unsafeCopy()) == vector.dk, "n = \(vector.n), r = \(vector.r), p = \(vector.p)")
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 4)
    }

    /// Python's hashlib.scrypt (OpenSSL's implementation, not ours) on random parameters, passwords,
    /// salts and lengths, every derivation through one reused workspace.
    @Test func matchesHashlibOnRandomParameters() throws {
        var generator = SystemRandomNumberGenerator()
        var cases: [(password: [UInt8], salt: [UInt8], n: Int, r: Int, p: Int, length: Int)] = []
        for _ in 0..<40 {
            cases.append(
                (
                    (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255) },
                    (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255) },
                    1 << Int.random(in: 1...10, using: &generator), Int.random(in: 1...9, using: &generator),
                    Int.random(in: 1...4, using: &generator), Int.random(in: 1...100, using: &generator)
                ))
        }
        let input = cases.map {
            "\(Hex.encode($0.password)) \(Hex.encode($0.salt)) \($0.n) \($0.r) \($0.p) \($0.length)"
        }
        let script = """
            import hashlib, sys
            for line in sys.stdin.read().splitlines():
                pw, salt, n, r, p, length = line.split(" ")
                print(hashlib.scrypt(bytes.fromhex(pw), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                                     dklen=int(length), maxmem=1 << 30).hex())
            """
        let expected = try PythonOracle.run(script, stdin: input.joined(separator: "\n") + "\n")
            .split(separator: "\n").map(String.init)
        #expect(expected.count == cases.count)
        let workspace = Scrypt.Workspace()
        var tally = VectorTally("oracle: hashlib.scrypt")
        for (vector, oracle) in zip(cases, expected) {
            let derived = try Scrypt.derive(
                password: SecretBytes(vector.password), salt: vector.salt, n: vector.n, r: vector.r, p: vector.p,
                length: vector.length, workspace: workspace)
            #expect(Hex.encode(derived.unsafeCopy()) == oracle, "n = \(vector.n), r = \(vector.r), p = \(vector.p)")
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 40)
    }

    /// A workspace maps on first use, keeps its memory for smaller derivations, maps more for larger
    /// ones, and gives the same keys as fresh memory.
    @Test func workspaceKeepsAndGrowsItsMemory() throws {
        let password = SecretBytes(Array("password".utf8))
        let salt = Array("NaCl".utf8)
        let workspace = Scrypt.Workspace()
        #expect(workspace.mappedBytes == 0)
        func derive(n: Int, in workspace: Scrypt.Workspace?) throws -> SecretBytes {
            try Scrypt.derive(password: password, salt: salt, n: n, r: 8, p: 2, length: 32, workspace: workspace)
        }
        #expect(try derive(n: 1024, in: workspace) == derive(n: 1024, in: nil))
        #expect(workspace.mappedBytes == 1024 * (1024 + 2))
        #expect(try derive(n: 16, in: workspace) == derive(n: 16, in: nil))
        #expect(workspace.mappedBytes == 1024 * (1024 + 2))
        #expect(try derive(n: 4096, in: workspace) == derive(n: 4096, in: nil))
        #expect(workspace.mappedBytes == 1024 * (4096 + 2))
        // A refused derivation maps nothing.
        #expect(throws: CryptoError(.memoryLimitExceeded, "")) {
            try Scrypt.derive(
                password: password, salt: salt, n: 1 << 16, r: 8, p: 1, length: 32, maxMemory: 1 << 20,
                workspace: workspace)
        }
        #expect(workspace.mappedBytes == 1024 * (4096 + 2))
    }

    /// A workspace that prefaults has every page of its memory resident before ROMix touches it; one that
    /// does not has none, and both derive RFC 7914's key. New workspaces follow the process-wide default.
    @Test func prefaultSwitchesTheMapping() throws {
        #if os(Linux)
        let page = Int(getpagesize())
        /// The pages of `bytes` at `base` that are in memory (mincore).
        func residentPages(_ base: UnsafeMutableRawPointer, _ bytes: Int) -> Int {
            var vector = [UInt8](repeating: 0, count: (bytes + page - 1) / page)
            #expect(mincore(base, bytes, &vector) == 0)
            return vector.filter { $0 & 1 == 1 }.count
        }
        let bytes = 1 << 22
        for prefaults in [true, false] {
            let workspace = Scrypt.Workspace(prefaultsMemory: prefaults)
            let resident = try workspace.withScratch(bytes: bytes) { residentPages($0, bytes) }
            #expect(resident == (prefaults ? bytes / page : 0), "prefaults: \(prefaults)")
            let derived = try Scrypt.derive(
                password: SecretBytes(Array("password".utf8)), salt: Array("NaCl".utf8), n: 1024, r: 8, p: 16,
                length: 64, workspace: workspace)
            #expect(
                Hex.encode(derived.unsafeCopy())
                    == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
            )
        }
        #endif
        #expect(Scrypt.Workspace.prefaultsMemoryByDefault)
        #expect(Scrypt.Workspace().prefaultsMemory)
        Scrypt.Workspace.prefaultsMemoryByDefault = false
        defer { Scrypt.Workspace.prefaultsMemoryByDefault = true }
        #expect(!Scrypt.Workspace().prefaultsMemory)
    }

    /// Two derivations with the same n and r (p and lengths may differ) give what each gives alone; a pair
    /// with different n is refused.
    @Test func pairMatchesSingleDerivations() throws {
        let workspaces = (Scrypt.Workspace(), Scrypt.Workspace())
        for (p1, p2) in [(1, 1), (1, 2), (3, 2)] {
            let first = Scrypt.Request(
                password: SecretBytes(Array("password".utf8)), salt: Array("NaCl".utf8), n: 1024, r: 8, p: p1,
                length: 64)
            let second = Scrypt.Request(
                password: SecretBytes(Array("pleaseletmein".utf8)), salt: Array("SodiumChloride".utf8), n: 1024, r: 8,
                p: p2, length: 32)
            let (a, b) = try Scrypt.derivePair(first, second, workspaces: workspaces)
            for (request, key) in [(first, a), (second, b)] {
                let alone = try Scrypt.derive(
                    password: request.password, salt: request.salt, n: request.n, r: request.r, p: request.p,
                    length: request.length)
                #expect(key == alone, "p = \(request.p)")
            }
        }
        let other = Scrypt.Request(password: SecretBytes([]), salt: [], n: 16, r: 8, p: 1, length: 32)
        let base = Scrypt.Request(password: SecretBytes([]), salt: [], n: 32, r: 8, p: 1, length: 32)
        #expect(throws: CryptoError(.invalidParameter, "")) {
            try Scrypt.derivePair(base, other, workspaces: workspaces)
        }
    }

    @Test func memoryBoundAndParameters() throws {
        let password = SecretBytes(Array("pw".utf8))
        #expect(Scrypt.memoryRequired(n: 262_144, r: 8, p: 1) == 128 * 8 * 262_145)
        // 128 * 8 * (1024 + 16) = 1_064_960 bytes.
        #expect(throws: CryptoError(.memoryLimitExceeded, "")) {
            try Scrypt.derive(password: password, salt: [1], n: 1024, r: 8, p: 16, length: 32, maxMemory: 1_064_959)
        }
        #expect(
            try Scrypt.derive(password: password, salt: [1], n: 1024, r: 8, p: 16, length: 32, maxMemory: 1_064_960)
                .count == 32)
        do {
            _ = try Scrypt.derive(password: password, salt: [1], n: 1 << 20, r: 8, p: 1, length: 32, maxMemory: 1 << 20)
            Issue.record("expected a memory error")
        } catch let error as CryptoError {
            #expect(error.code == .memoryLimitExceeded)
            #expect(error.message.contains("1048576"))
        }
        for (n, r, p) in [
            (0, 8, 1), (1, 8, 1), (1000, 8, 1), (16, 0, 1), (16, 1, 0), (16, 1 << 15, 1 << 15), (16, Int.max, 2),
        ] {
            #expect(throws: CryptoError(.invalidParameter, "")) {
                try Scrypt.derive(password: password, salt: [1], n: n, r: r, p: p, length: 32)
            }
        }
    }

    @Test func backgroundDerivationMatches() async throws {
        let password = SecretBytes(Array("password".utf8))
        let salt = Array("NaCl".utf8)
        let background = try await Scrypt.deriveInBackground(
            password: password, salt: salt, n: 1024, r: 8, p: 1, length: 32)
        #expect(background == (try Scrypt.derive(password: password, salt: salt, n: 1024, r: 8, p: 1, length: 32)))
        await #expect(throws: CryptoError(.memoryLimitExceeded, "")) {
            try await Scrypt.deriveInBackground(
                password: password, salt: salt, n: 1024, r: 8, p: 1, length: 32, maxMemory: 1024)
        }
    }
}
