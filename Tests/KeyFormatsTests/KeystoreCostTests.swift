import Foundation
import Testing

@testable import KeyFormats

/// Bounded cost per keystore (issue 28): a file whose KDF would take minutes or gigabytes is refused
/// while it is parsed, before any work.
@Suite struct KeystoreCostTests {
    /// A version 3 scrypt keystore with these parameters (the rest well formed, the MAC arbitrary).
    static func scrypt(n: Int, r: Int, p: Int) -> Data {
        Data(
            """
            {"version": 3, "crypto": {"cipher": "aes-128-ctr", "cipherparams": {"iv": "\(String(repeating: "00", count: 16))"},
            "ciphertext": "\(String(repeating: "11", count: 32))", "kdf": "scrypt",
            "kdfparams": {"n": \(n), "r": \(r), "p": \(p), "dklen": 32, "salt": "\(String(repeating: "22", count: 32))"},
            "mac": "\(String(repeating: "33", count: 32))"}}
            """.utf8)
    }

    static func refusal(_ json: Data) -> KeyFormatError? {
        do {
            _ = try EncryptedKeystore(json: json)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [(2, 1, 8_372_224), (16, 1, 1 << 22)])
    func theKeystoresOfTheIssueAreRefusedBeforeAnyWork(_ parameters: (Int, Int, Int)) {
        let (n, r, p) = parameters
        let json = Self.scrypt(n: n, r: r, p: p)
        #expect(json.count < 1_000)
        let clock = ContinuousClock()
        var error: KeyFormatError?
        let took = clock.measure { error = Self.refusal(json) }
        #expect(error?.code == .kdfCostLimit)
        #expect(error?.code.errorClass == .decryption)
        #expect(
            error?.reason
                == "scrypt n = \(n), r = \(r), p = \(p) asks for n·r·p = \(n * r * p) units of work, above the cap of "
                + "8388608; refused before any work", "\(String(describing: error))")
        // Parsing only: the refused derivation took 27 s and 71 s.
        #expect(took < .milliseconds(100), "took \(took)")
    }

    @Test func theCommonWritersAreWithinTheCaps() throws {
        // geth's standard and light costs, the n = 2^18, r = 1, p = 8 of other writers, and n = 2^20, r = 8.
        for (n, r, p) in [(1 << 18, 8, 1), (1 << 12, 8, 6), (1 << 18, 1, 8), (1 << 20, 8, 1)] {
            let keystore = try EncryptedKeystore(json: Self.scrypt(n: n, r: r, p: p))
            #expect(keystore.kdf == .scrypt(n: n, r: r, p: p))
        }
        #expect(Self.refusal(Self.scrypt(n: 1 << 21, r: 8, p: 1))?.code == .kdfCostLimit)
        #expect(Self.refusal(Self.scrypt(n: 1 << 20, r: 8, p: 2))?.code == .kdfCostLimit)
    }

    @Test func overflowingParametersAreRefused() {
        let error = Self.refusal(Self.scrypt(n: 1 << 40, r: 1 << 20, p: 1 << 9))
        #expect(
            error?.code == .kdfCostLimit || error?.code == .invalidKeystoreParameter, "\(String(describing: error))")
    }

    @Test func pbkdf2RoundsAreCapped() {
        func pbkdf2(_ c: Int) -> Data {
            Data(
                """
                {"version": 3, "crypto": {"cipher": "aes-128-ctr", "cipherparams": {"iv": "\(String(repeating: "00", count: 16))"},
                "ciphertext": "\(String(repeating: "11", count: 32))", "kdf": "pbkdf2",
                "kdfparams": {"prf": "hmac-sha256", "c": \(c), "dklen": 32, "salt": "22"},
                "mac": "\(String(repeating: "33", count: 32))"}}
                """.utf8)
        }
        #expect(Self.refusal(pbkdf2(262_144)) == nil)
        #expect(Self.refusal(pbkdf2(1 << 21)) == nil)
        let error = Self.refusal(pbkdf2((1 << 21) + 1))
        #expect(error?.code == .kdfCostLimit)
        #expect(error?.reason == "PBKDF2 iteration count 2097153 is above the cap of 2097152; refused before any work")
    }

    @Test func duplicateMembersAndDeepNestingAreRefusedAtTheirByte() {
        let twice = Data(#"{"version": 3, "version": 1}"#.utf8)
        #expect(Self.refusal(twice)?.code == .malformedJSON)
        #expect(
            Self.refusal(twice)?.reason == #"not a keystore: JSON: duplicate member name "version" at byte offset 15"#)
        let deep = Data((#"{"crypto": "# + String(repeating: "[", count: 100_000)).utf8)
        #expect(Self.refusal(deep)?.reason == "not a keystore: JSON: nesting deeper than 8 at byte offset 18")
    }
}
