import Foundation
import KeyFormats
import OMSProtocol
import Playbook
import WalletCrypto

/// The parsers that read outside input, one fuzz target each (issue 28). A target must never crash,
/// hang or run away with memory, whatever the bytes; refusing them with an error is the expected outcome.
enum FuzzTargets {
    /// Every target by name (the seed folder `fuzz/corpus/<name>` and `WALLETOPS_FUZZ_TARGET`).
    static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "yaml": { bytes in
            _ = Playbook.validate(String(decoding: bytes, as: UTF8.self), file: "fuzz.yaml")
        },
        "json": { bytes in _ = try? JSONValue.parse(bytes) },
        "request": { bytes in
            // The core's request readers: the strict parser, then the ImportWallets fast reader.
            _ = try? JSONValue.parse(bytes, maxDepth: 32)
            _ = ImportWalletsRequest(jsonBytes: bytes)
        },
        "keystore": { bytes in _ = try? EncryptedKeystore(json: Data(bytes)) },
        "solana-json": { bytes in _ = try? KeyFile.solanaKeypairJSON(SecretBytes(bytes)) },
        "csv": { bytes in
            // CSVKeyReader streams a file: one scratch file per process, rewritten per input.
            let path = FuzzTargets.scratchFile
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return }
            guard let reader = try? CSVKeyReader(path: path, defaultType: .ethereum, chunkSize: 64) else { return }
            var rows = 0
            while rows < 10_000, let record = try? reader.next() {
                _ = record
                rows += 1
            }
        },
        "phrase-csv": { bytes in
            // A phrase CSV: each row read, checked and derived (a scan bounded by the gap limit).
            let path = FuzzTargets.scratchFile
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return }
            guard let reader = try? CSVKeyReader(path: path, chunkSize: 64, kind: .phrases) else { return }
            var rows = 0
            while rows < 20, let row = try? reader.nextPhraseRow() {
                _ = row.records(defaultType: .ethereum, referencePrefix: "fuzz", gapLimit: 2)
                rows += 1
            }
        },
        "mnemonic": { bytes in
            // A phrase, a path or template, and extended-key text, from the same bytes.
            _ = try? Mnemonic(phrase: SecretBytes(bytes))
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? DerivationScheme(parsing: text)
            _ = try? DerivationPath(parsing: text)
            _ = try? BIP32.ExtendedPrivateKey(text: SecretBytes(bytes))
            _ = try? BIP32.ExtendedPublicKey(text: text)
            // The same bytes as a passphrase: its NFKD, which runs without a String, must give the seed that
            // Foundation's NFKD of the text gives (a differential check; ASCII is its own NFKD).
            if bytes.contains(where: { $0 >= 0x80 }), bytes.count <= 256,
                let valid = String(validating: bytes, as: UTF8.self)
            {
                let ours = try? FuzzTargets.vectorPhrase.seed(passphrase: SecretBytes(bytes))
                let foundation = try? FuzzTargets.vectorPhrase.seed(
                    passphrase: SecretBytes(Array(valid.decomposedStringWithCompatibilityMapping.utf8)))
                precondition(ours != nil && ours == foundation, "the passphrase's NFKD is not Foundation's")
            }
        },
        "base58": { bytes in _ = try? Base58.decode(String(decoding: bytes, as: UTF8.self)) },
        "cbor": { bytes in _ = try? CBORDecoder().decode(bytes) },
        "attestation": { bytes in
            _ = try? COSESign1(encoded: bytes)
            _ = try? NitroAttestationDocument(payload: bytes)
        },
        "x509": { bytes in
            _ = try? X509Certificate(derEncoded: bytes)
            _ = try? X509Certificate.certificates(pemEncoded: String(decoding: bytes, as: UTF8.self))
        },
        "jwt": { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? JWS(compact: text)
            _ = try? JWT.decodeUnverified(text)
        },
    ]

    static let scratchFile = NSTemporaryDirectory() + "walletops-fuzz-\(getpid()).csv"

    /// BIP-39's first English test vector, whose seeds the mnemonic target compares.
    static let vectorPhrase = try! Mnemonic(
        phrase: SecretBytes(
            Array("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about".utf8))
    )
}
