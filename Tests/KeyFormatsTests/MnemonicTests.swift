import Foundation
import KeyFormats
import TestSupport
import Testing
import WalletCrypto

/// BIP-39 phrases: Trezor's published vectors, the word list, errors by position only, NFKD.
@Suite struct MnemonicTests {
    static func phrase(_ text: String) -> SecretBytes { SecretBytes(Array(text.utf8)) }

    static func text(_ secret: SecretBytes) -> String { String(decoding: secret.unsafeCopy(), as: UTF8.self) }

    /// Trezor's 24 English vectors: entropy to phrase, phrase to entropy, the seed with the passphrase
    /// "TREZOR", and the BIP-32 master xprv of that seed.
    @Test func trezorVectors() throws {
        var tally = VectorTally("bip39_trezor_vectors_english.json")
        let file = try #require(try Fixtures.json("vectors/bip39_trezor_vectors_english.json") as? [String: Any])
        for vector in try #require(file["english"] as? [[String]]) {
            let entropy = SecretBytes(try #require(Hex.decode(vector[0])))
            let fromEntropy = try Mnemonic(entropy: entropy)
            #expect(Self.text(fromEntropy.canonicalPhrase) == vector[1])
            let parsed = try Mnemonic(phrase: Self.phrase(vector[1]))
            #expect(parsed.entropy == entropy)
            #expect(parsed.wordCount == vector[1].split(separator: " ").count)
            let seed = try parsed.seed(passphrase: Self.phrase("TREZOR"))
            #expect(Hex.encode(seed.unsafeCopy()) == vector[2])
            let master = try BIP32.ExtendedPrivateKey(seed: seed)
            #expect(
                Hex.encode(master.serializedPrivate().unsafeCopy())
                    == Hex.encode(try Base58.decode(vector[3]).prefix(78)))
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 24)
    }

    /// The list is BIP-39's: 2,048 sorted words, unique in their first four letters.
    @Test func theEnglishList() {
        let words = BIP39.englishWords
        #expect(words.count == 2048)
        #expect(words == words.sorted())
        #expect(Set(words.map { $0.prefix(4) }).count == 2048)
        #expect(words.first == "abandon" && words.last == "zoo")
        let digest = SHA256.hash(data: Array((words.joined(separator: "\n") + "\n").utf8))
        #expect(Hex.encode(digest) == "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda")
    }

    static let valid = "legal winner thank year wave sausage worth useful legal winner thank yellow"

    /// An unknown word is named by its position, never by itself, and nothing suggests a correction.
    @Test func unknownWordsAreReportedByPositionOnly() {
        var words = Self.valid.split(separator: " ").map(String.init)
        words[6] = "wurth"
        words[9] = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
        do {
            _ = try Mnemonic(phrase: Self.phrase(words.joined(separator: " ")))
            Issue.record("a phrase with unknown words was read")
        } catch {
            #expect(error.code == .unknownWord && error.errorClass == .validation)
            #expect(error.reason == "words 7 and 10 are not in the BIP-39 English list")
            for word in Set(words) { #expect(!error.description.contains(word)) }
            #expect(!error.description.contains("worth"), "no suggestion")
        }
        words[9] = "winner"
        do {
            _ = try Mnemonic(phrase: Self.phrase(words.joined(separator: " ")))
        } catch {
            #expect(error.reason == "word 7 is not in the BIP-39 English list")
        }
    }

    /// A swapped word breaks the checksum; a missing word is a wrong count; neither echoes a word.
    @Test func checksumAndCountAreChecked() {
        var words = Self.valid.split(separator: " ").map(String.init)
        words.swapAt(0, 1)
        #expect(throws: KeyFormatError(.mnemonicChecksum, "")) {
            try Mnemonic(phrase: Self.phrase(words.joined(separator: " ")))
        }
        #expect(throws: KeyFormatError(.wrongWordCount, "")) {
            try Mnemonic(phrase: Self.phrase(words.dropLast().joined(separator: " ")))
        }
        #expect(throws: KeyFormatError(.emptyKey, "")) { try Mnemonic(phrase: Self.phrase(" \t\n")) }
        do {
            _ = try Mnemonic(phrase: Self.phrase(words.joined(separator: " ")))
        } catch {
            for word in words { #expect(!error.reason.contains(word)) }
        }
    }

    /// Capitals, tabs, runs of spaces and a full-width space (NFKD maps it to a space) read as the same
    /// phrase and give the same seed.
    @Test func spellingVariantsGiveTheSameSeed() throws {
        let canonical = try Mnemonic(phrase: Self.phrase(Self.valid)).seed()
        let variants = [
            "  Legal WINNER\tthank  year wave sausage worth useful legal winner thank yellow\n",
            Self.valid.replacingOccurrences(of: " ", with: "\u{3000}"),
        ]
        for variant in variants {
            let mnemonic = try Mnemonic(phrase: Self.phrase(variant))
            #expect(Self.text(mnemonic.canonicalPhrase) == Self.valid)
            #expect(try mnemonic.seed() == canonical)
        }
    }

    /// The passphrase is NFKD-normalized: composed and decomposed forms give one seed, the seed an
    /// independent script (Python's unicodedata and hashlib) computes.
    @Test func passphraseIsNormalizedNFKD() throws {
        let mnemonic = try Mnemonic(phrase: Self.phrase(Self.valid))
        let composed = try mnemonic.seed(passphrase: Self.phrase("caf\u{E9} \u{FB01}"))
        let decomposed = try mnemonic.seed(passphrase: SecretBytes(Array("cafe\u{301} fi".utf8)))
        #expect(composed == decomposed)
        #expect(composed != (try mnemonic.seed()))
        let script = """
            import sys, hashlib, unicodedata
            phrase, passphrase = sys.stdin.read().split("\\n")[:2]
            salt = ("mnemonic" + unicodedata.normalize("NFKD", passphrase)).encode()
            print(hashlib.pbkdf2_hmac("sha512", unicodedata.normalize("NFKD", phrase).encode(), salt, 2048).hex())
            """
        let oracle = try PythonOracle.run(script, stdin: "\(Self.valid)\ncaf\u{E9} \u{FB01}\n")
        #expect(Hex.encode(composed.unsafeCopy()) == oracle.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(throws: KeyFormatError(.invalidPassphrase, "")) {
            try mnemonic.seed(passphrase: SecretBytes([0xff, 0xfe]))
        }
    }

    /// `description` never shows the phrase.
    @Test func descriptionIsRedacted() throws {
        let mnemonic = try Mnemonic(phrase: Self.phrase(Self.valid))
        #expect("\(mnemonic)" == "Mnemonic(12 words, redacted)")
    }
}
