import TestSupport
import Testing

@testable import Playbook

/// SHA-256 against the FIPS 180-2 appendix examples and the NIST CAVP short-message vectors.
@Suite struct PlaybookHashTests {
    @Test func fipsVectors() {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let cases: [([UInt8], String)] = [
            (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ([], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (
                Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (million, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        ]
        var tally = VectorTally("FIPS 180-2 SHA-256 examples")
        for (message, digest) in cases {
            #expect(PlaybookHash(of: message).hex == digest)
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 4)
    }

    @Test func hexRoundTrip() {
        let hash = PlaybookHash(of: Array("abc".utf8))
        #expect(PlaybookHash(hex: hash.hex) == hash)
        #expect(hash.description.hasPrefix("sha256:ba7816bf"))
        #expect(PlaybookHash(hex: "zz") == nil)
    }
}
