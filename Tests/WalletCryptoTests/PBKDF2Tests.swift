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
}
