import TestSupport
import Testing
import WalletCrypto

/// RFC 4231 HMAC-SHA-2 test cases 1, 2 and 6 (a key longer than the block).
@Suite struct HMACTests {
    struct Case {
        let key: [UInt8]
        let data: [UInt8]
        let sha256: String
        let sha384: String
        let sha512: String
    }

    static let cases = [
        Case(
            key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
            sha256: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            sha384: "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6",
            sha512:
                "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"
        ),
        Case(
            key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            sha256: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            sha384: "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649",
            sha512:
                "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        ),
        Case(
            key: [UInt8](repeating: 0xaa, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            sha256: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            sha384: "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c60c2ef6ab4030fe8296248df163f44952",
            sha512:
                "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"
        ),
    ]

    @Test func rfc4231() {
        var tally = VectorTally("RFC 4231 cases 1, 2, 6")
        for c in Self.cases {
            let key = SecretBytes(c.key)
            #expect(Hex.encode(HMAC.authenticationCode(for: c.data, key: key, hash: .sha256)) == c.sha256)
            #expect(Hex.encode(HMAC.authenticationCode(for: c.data, key: key, hash: .sha384)) == c.sha384)
            #expect(Hex.encode(HMAC.authenticationCode(for: c.data, key: key, hash: .sha512)) == c.sha512)
            #expect(HMAC.isValidAuthenticationCode(Hex.decode(c.sha256)!, for: c.data, key: key))
            var wrong = Hex.decode(c.sha256)!
            wrong[31] ^= 1
            #expect(!HMAC.isValidAuthenticationCode(wrong, for: c.data, key: key))

            var incremental = HMAC(key: key, hash: .sha512)
            for byte in c.data { incremental.update(data: [byte]) }
            #expect(Hex.encode(incremental.finalize()) == c.sha512)
            tally.ran(3)
        }
        tally.report()
        #expect(tally.ran == 9)
    }
}
