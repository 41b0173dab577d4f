import Foundation
import KeyFormats
import TestSupport
import Testing
import WalletCrypto

/// The named layouts and path templates, checked against independent oracles: eth-account's
/// `Account.from_mnemonic` for Ethereum paths, a SLIP-10 script of Python's hmac/hashlib with PyNaCl for
/// Solana paths (itself checked against the SLIP-10 vector first).
@Suite struct PhraseAccountsTests {
    static func addresses(_ accounts: [PhraseAccounts.Account]) throws -> [String] {
        try accounts.map { account in
            let key = try account.secret.derived()
            return key.address
        }
    }

    /// Phrases of 12 to 24 words from eth-account, with and without a passphrase: the addresses of the
    /// two Ethereum layouts at indices 0, 1 and 7 are the ones eth-account derives on the same paths.
    @Test func ethereumLayoutsMatchEthAccount() throws {
        let script = """
            import json
            from eth_account import Account
            Account.enable_unaudited_hdwallet_features()
            out = []
            for words, passphrase in [(12, ""), (15, "pass phrase"), (18, ""), (24, "TREZOR"), (12, "caf\\u00e9")]:
                _, phrase = Account.create_with_mnemonic(num_words=words)
                case = {"phrase": phrase, "passphrase": passphrase, "ethereum": [], "ledger": []}
                for i in [0, 1, 7]:
                    case["ethereum"].append(Account.from_mnemonic(phrase, passphrase, f"m/44'/60'/0'/0/{i}").address)
                    case["ledger"].append(Account.from_mnemonic(phrase, passphrase, f"m/44'/60'/{i}'/0/0").address)
                out.append(case)
            print(json.dumps(out))
            """
        let cases = try JSONSerialization.jsonObject(with: Data(try PythonOracle.run(script).utf8)) as! [[String: Any]]
        #expect(cases.count == 5)
        for item in cases {
            let mnemonic = try Mnemonic(phrase: SecretBytes(Array((item["phrase"] as! String).utf8)))
            let passphrase = SecretBytes(Array((item["passphrase"] as! String).utf8))
            for (layout, key) in [(DerivationScheme.Layout.ethereum, "ethereum"), (.ledgerLiveEthereum, "ledger")] {
                let accounts = try PhraseAccounts.derive(
                    mnemonic, passphrase: passphrase, type: .ethereum, scheme: DerivationScheme(layout),
                    indices: [0, 1, 7])
                #expect(try Self.addresses(accounts) == item[key] as! [String], "\(layout)")
            }
            // The same path as a template gives the same accounts as the layout.
            let template = try PhraseAccounts.derive(
                mnemonic, passphrase: passphrase, type: .ethereum,
                scheme: DerivationScheme(parsing: "m/44h/60h/0h/0/{i}"), indices: [7])
            #expect(try Self.addresses(template) == [(item["ethereum"] as! [String])[2]])
            #expect(template[0].path.description == "m/44'/60'/0'/0/7")
        }
    }

    /// An independent SLIP-10 script (Python hmac + hashlib + PyNaCl, base58 by solders), first checked
    /// against SLIP-10's vector 1, derives the Solana layouts' addresses for eth-account phrases; the
    /// `solana-keygen` layout's is the seed's first half, checked against solders for ASCII passphrases.
    @Test func solanaLayoutsMatchAnIndependentSLIP10Script() throws {
        let script = """
            import hmac, hashlib, json, unicodedata
            from eth_account import Account
            from nacl.signing import SigningKey
            from solders.keypair import Keypair
            from solders.pubkey import Pubkey
            Account.enable_unaudited_hdwallet_features()
            def master(seed):
                i = hmac.new(b"ed25519 seed", seed, hashlib.sha512).digest()
                return i[:32], i[32:]
            def child(key, code, index):
                i = hmac.new(code, b"\\x00" + key + (index | 0x80000000).to_bytes(4, "big"), hashlib.sha512).digest()
                return i[:32], i[32:]
            def derive(seed, steps):
                key, code = master(seed)
                for s in steps:
                    key, code = child(key, code, s)
                return key
            # SLIP-10 ed25519 vector 1, m/0'/1'/2'/2'/1000000000'
            assert derive(bytes.fromhex("000102030405060708090a0b0c0d0e0f"), [0, 1, 2, 2, 1000000000]).hex() == \\
                "8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793"
            def address(key):
                return str(Pubkey(bytes(SigningKey(key).verify_key)))
            out = []
            for words, passphrase in [(12, ""), (24, "TREZOR"), (18, "caf\\u00e9")]:
                _, phrase = Account.create_with_mnemonic(num_words=words)
                salt = ("mnemonic" + unicodedata.normalize("NFKD", passphrase)).encode()
                seed = hashlib.pbkdf2_hmac("sha512", phrase.encode(), salt, 2048)
                out.append({
                    "phrase": phrase, "passphrase": passphrase,
                    "phantom": [address(derive(seed, [44, 501, i, 0])) for i in [0, 1, 5]],
                    "ledger": [address(derive(seed, [44, 501, i])) for i in [0, 1, 5]],
                    "cli": address(derive(seed, [44, 501])),
                    "keygen": address(seed[:32]),
                })
                # solana-keygen without a path (solders' from_seed_phrase_and_passphrase, which does not
                # NFKD the passphrase, so only for ASCII ones) is the seed's first half.
                if passphrase.isascii():
                    keypair = Keypair.from_seed_phrase_and_passphrase(phrase, passphrase)
                    assert str(keypair.pubkey()) == out[-1]["keygen"]
            print(json.dumps(out))
            """
        let cases = try JSONSerialization.jsonObject(with: Data(try PythonOracle.run(script).utf8)) as! [[String: Any]]
        #expect(cases.count == 3)
        for item in cases {
            let mnemonic = try Mnemonic(phrase: SecretBytes(Array((item["phrase"] as! String).utf8)))
            let passphrase = SecretBytes(Array((item["passphrase"] as! String).utf8))
            for (layout, key) in [(DerivationScheme.Layout.phantom, "phantom"), (.ledgerLiveSolana, "ledger")] {
                let accounts = try PhraseAccounts.derive(
                    mnemonic, passphrase: passphrase, type: .solana, scheme: DerivationScheme(layout),
                    indices: [0, 1, 5])
                #expect(try Self.addresses(accounts) == item[key] as! [String], "\(layout)")
            }
            let cli = try PhraseAccounts.derive(
                mnemonic, passphrase: passphrase, type: .solana, scheme: DerivationScheme(.solanaCLI), indices: [0])
            #expect(try Self.addresses(cli) == [item["cli"] as! String])
            #expect(cli[0].path.description == "m/44'/501'")
            let keygen = try PhraseAccounts.derive(
                mnemonic, passphrase: passphrase, type: .solana, scheme: DerivationScheme(.solanaKeygen),
                indices: [0])
            #expect(try Self.addresses(keygen) == [item["keygen"] as! String])
            #expect(keygen[0].path.description == "m")
        }
    }

    /// Schemes that do not fit: a normal step for Solana (SLIP-10 says why), a layout of the other chain,
    /// an index on a path without {i}, unreadable templates.
    @Test func misfitSchemesAreRefused() throws {
        let mnemonic = try Mnemonic(phrase: SecretBytes(Array(MnemonicTests.valid.utf8)))
        let none = SecretBytes([])
        do {
            _ = try PhraseAccounts.derive(
                mnemonic, passphrase: none, type: .solana, scheme: DerivationScheme(parsing: "m/44'/501'/{i}'/0"),
                indices: [0])
            Issue.record("a normal Ed25519 step was derived")
        } catch {
            #expect(error.code == .invalidPath)
            #expect(error.reason.contains("hardened steps only") && error.reason.contains("step 0 must be hardened"))
        }
        do {
            _ = try PhraseAccounts.derive(
                mnemonic, passphrase: none, type: .solana, scheme: DerivationScheme(parsing: "m/44'/501'/{i}"),
                indices: [0])
            Issue.record("a normal Ed25519 index step was derived")
        } catch {
            #expect(error.reason.contains("step {i} must be hardened ({i}')"))
        }
        #expect(throws: KeyFormatError(.invalidPath, "")) {
            try PhraseAccounts.derive(
                mnemonic, passphrase: none, type: .solana, scheme: DerivationScheme(.ethereum), indices: [0])
        }
        do {
            _ = try PhraseAccounts.derive(
                mnemonic, passphrase: none, type: .solana, scheme: DerivationScheme(.solanaCLI), indices: [0, 1])
            Issue.record("solana-cli derived index 1")
        } catch {
            #expect(error.code == .invalidIndices && error.reason.contains("ledger-live-solana"))
        }
        do {
            _ = try PhraseAccounts.derive(
                mnemonic, passphrase: none, type: .solana, scheme: DerivationScheme(.solanaKeygen), indices: [1])
            Issue.record("solana-keygen derived index 1")
        } catch {
            #expect(error.code == .invalidIndices && error.reason.contains("ledger-live-solana"))
        }
        #expect(throws: KeyFormatError(.invalidPath, "")) {
            try PhraseAccounts.derive(
                mnemonic, passphrase: none, type: .ethereum, scheme: DerivationScheme(.solanaKeygen), indices: [0])
        }
        for bad in ["m/44'/{i}/{i}", "m/44'/{i}x", "44'/60'", "metamask", "m/44'/60'/0'/0/x{i}", "m/2147483648/{i}"] {
            #expect(throws: KeyFormatError(.invalidPath, ""), "\(bad)") { try DerivationScheme(parsing: bad) }
        }
        #expect(try DerivationScheme(parsing: " Phantom ").layout == .phantom)
        #expect(try DerivationScheme(parsing: "m/44'/60'/0'/0/{i}").templateText == "m/44'/60'/0'/0/{i}")
        #expect(throws: KeyFormatError(.invalidIndices, "")) {
            try DerivationScheme(.ethereum).path(index: 0x8000_0000)
        }
    }
}
