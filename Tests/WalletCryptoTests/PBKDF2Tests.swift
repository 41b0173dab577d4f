import TestSupport
import Testing
import WalletCrypto

@Suite struct PBKDF2Tests {
    /// RFC 7914 section 11: PBKDF2-HMAC-SHA256 ("passwd", "salt", c = 1, dkLen = 64).
    @Test func rfc7914Section11() throws {
        var tally = VectorTally("RFC 7914 section 11")
        let key = try PBKDF2.sha256(
            password: SecretBytes(Array("passwd".utf8)), salt: Array("salt".utf8), iterations: 1, length: 64)
        #expect(
            Hex.encode(key.unsafeCopy())
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        )
        tally.ran()
        tally.report()
        #expect(tally.ran == 1)
        #expect(throws: CryptoError(.invalidParameter, "")) {
            try PBKDF2.sha256(password: SecretBytes([1]), salt: [1], iterations: 0, length: 32)
        }
    }

    /// PBKDF2-HMAC-SHA512 ("password", "salt", c = 1 and 2, dkLen = 64), the published values that
    /// Python's hashlib.pbkdf2_hmac gives too; BIP-39's seeds (2,048 rounds) are in MnemonicTests.
    @Test func sha512PasswordSalt() throws {
        let expected = [
            1:
                "867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce",
            2:
                "e1d9c16aa681708a45f5c7c4e215ceb66e011a2e9f0040713f18aefdb866d53cf76cab2868a39b9f7840edce4fef5a82be67335c77a6068e04112754f27ccf4e",
        ]
        for (iterations, hex) in expected {
            let key = try PBKDF2.sha512(
                password: SecretBytes(Array("password".utf8)), salt: Array("salt".utf8), iterations: iterations,
                length: 64)
            #expect(Hex.encode(key.unsafeCopy()) == hex, "c = \(iterations)")
        }
        #expect(throws: CryptoError(.invalidParameter, "")) {
            try PBKDF2.sha512(password: SecretBytes([1]), salt: [1], iterations: 1, length: 0)
        }
    }
}
