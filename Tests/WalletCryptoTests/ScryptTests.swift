import TestSupport
import Testing

@testable import WalletCrypto

@Suite struct ScryptTests {
    /// RFC 7914 section 12, the first two vectors (the others take seconds).
    @Test func rfc7914() throws {
        var tally = VectorTally("RFC 7914 section 12")
        let empty = try Scrypt.derive(password: SecretBytes([]), salt: [UInt8](), n: 16, r: 1, p: 1, length: 64)
        #expect(
            Hex.encode(empty.unsafeCopy())
                == "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"
        )
        tally.ran()
        let nacl = try Scrypt.derive(
            password: SecretBytes(Array("password".utf8)), salt: Array("NaCl".utf8), n: 1024, r: 8, p: 16, length: 64)
        #expect(
            Hex.encode(nacl.unsafeCopy())
                == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        )
        tally.ran()
        tally.report()
        #expect(tally.ran == 2)
    }

    /// libsodium picks its scrypt code from the CPU features sodium_init reads: a derivation must
    /// have run it, or the portable code costs about 30% more CPU per keystore (docs/bench.md).
    @Test func derivationInitializesLibsodium() throws {
        _ = try Scrypt.derive(password: SecretBytes([]), salt: [UInt8](), n: 16, r: 1, p: 1, length: 32)
        // Read before Sodium.ready, which would run sodium_init itself. (Another test of the process
        // may have run it first; run alone, this fails unless the derivation did.)
        #if arch(x86_64)
        #expect(Sodium.detectedSSE2)
        #endif
        #expect(Sodium.ready)
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
