import Foundation
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

/// Attested imports end to end: every suite, both key types, every accepted key form.
@Suite struct ImportRoundTripTests {
    /// One way to hand a key to the client, with the address it must import to.
    struct KeyForm {
        var name: String
        var family: NetworkFamily
        var plaintext: SecretBytes
        var address: String
        /// The scalar or seed, for the plaintext scan.
        var secret: [UInt8]
    }

    static func keyForms() -> [KeyForm] {
        let eth = Secp256k1.PrivateKey.generate()
        let ethHex = Base16.encode(eth.secretBytes.unsafeCopy())
        let sol = Ed25519.PrivateKey.generate()
        return [
            KeyForm(
                name: "ethereum raw", family: .evm, plaintext: eth.secretBytes,
                address: eth.ethereumAddress.checksummed,
                secret: eth.secretBytes.unsafeCopy()),
            KeyForm(
                name: "ethereum hex", family: .evm, plaintext: SecretBytes(Array(" 0x\(ethHex.uppercased())\n".utf8)),
                address: eth.ethereumAddress.checksummed, secret: eth.secretBytes.unsafeCopy()),
            KeyForm(
                name: "solana seed", family: .solana, plaintext: sol.seed, address: sol.solanaAddress,
                secret: sol.seed.unsafeCopy()),
            KeyForm(
                name: "solana keypair", family: .solana, plaintext: sol.keypairBytes, address: sol.solanaAddress,
                secret: sol.seed.unsafeCopy()),
            KeyForm(
                name: "solana base58 keypair", family: .solana,
                plaintext: SecretBytes(Array((Base58.encode(sol.keypairBytes.unsafeCopy()) + "\n").utf8)),
                address: sol.solanaAddress, secret: sol.seed.unsafeCopy()),
        ]
    }

    @Test(arguments: AccessTransport.allCases, ImportSuite.allCases)
    func importsEveryKeyFormWithThisSuite(_ transport: AccessTransport, _ suite: ImportSuite) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        var imported: [String] = []
        var secrets: [[UInt8]] = []
        for index in Self.keyForms().indices {
            // A fresh key for each form, so every form imports into this one core.
            let form = Self.keyForms()[index]
            secrets.append(form.secret)
            let wallet = try await harness.client.importWallet(
                privateKey: form.plaintext, networkFamily: form.family, reference: "import \(form.name)",
                suite: suite, verifier: harness.verifier)
            #expect(wallet.address == form.address, "\(form.name)")
            #expect(wallet.keyOrigin == .imported && wallet.networkFamily == form.family)
            #expect(wallet.reference == "import \(form.name)")
            imported.append(form.address)
        }
        #expect(imported.count == 5)
        #expect(try await harness.wallets().map(\.address) == imported)
        #expect(harness.wire.count(.getRecipientKey) == 5 && harness.wire.count(.importWallet) == 5)
        let scan = SecretScan(secrets)
        #expect(scan.count == 5)
        #expect(try scan.findings(under: harness.core.home.url).isEmpty)
    }

    @Test(arguments: AccessTransport.allCases)
    func everySolanaAndEthereumFormImportsToTheSameAddress(_ transport: AccessTransport) async throws {
        var checked = 0
        for form in Self.keyForms() {
            let harness = try await ImportHarness(transport)
            defer { harness.remove() }
            let wallet = try await harness.client.importWallet(
                privateKey: form.plaintext, networkFamily: form.family, verifier: harness.verifier)
            #expect(wallet.address == form.address, "\(form.name)")
            checked += 1
        }
        #expect(checked == 5)
    }

    @Test(arguments: AccessTransport.allCases)
    func duplicateImportIsRefusedAndChangesNothing(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let key = Secp256k1.PrivateKey.generate()
        let first = try await harness.client.importWallet(
            privateKey: key.secretBytes, networkFamily: .evm, reference: "first", verifier: harness.verifier)
        let before = try await harness.wallets()
        await expectWaasError(.addressAlreadyImported) {
            _ = try await harness.client.importWallet(
                privateKey: key.secretBytes, networkFamily: .evm, reference: "second", verifier: harness.verifier)
        }
        // A created wallet's address is as taken as an imported one's; an enclave key cannot be re-imported.
        #expect(try await harness.wallets() == before)
        #expect(before == [first])

        // The recipient key of the refused import is still unused: the same sealed key opens later.
        let (keyId, publicKey) = try await harness.client.recipientKey(verifier: harness.verifier)
        let request = try harness.sealedRequest(
            key.secretBytes, keyId: keyId, publicKey: publicKey, suite: .default, networkFamily: .evm)
        await expectWaasError(.addressAlreadyImported) {
            _ = try await harness.client.call(.importWallet, request, as: WalletResponse.self)
        }
        let other = Secp256k1.PrivateKey.generate()
        let retry = try harness.sealedRequest(
            other.secretBytes, keyId: keyId, publicKey: publicKey, suite: .default, networkFamily: .evm)
        let wallet = try await harness.client.call(.importWallet, retry, as: WalletResponse.self).wallet
        #expect(wallet.address == other.ethereumAddress.checksummed)
    }

    @Test(arguments: AccessTransport.allCases)
    func invalidKeysAreRefusedWithoutEchoingThem(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let order = Secp256k1.curveOrder
        var orderMinusOne = order
        orderMinusOne[31] -= 1
        let sol = Ed25519.PrivateKey.generate()
        var mismatched = sol.keypairBytes.unsafeCopy()
        mismatched[63] ^= 1
        let cases: [(String, NetworkFamily, [UInt8])] = [
            ("zero scalar", .evm, [UInt8](repeating: 0, count: 32)),
            ("scalar = n", .evm, order),
            ("31 bytes", .evm, [UInt8](repeating: 7, count: 31)),
            ("63 hex digits", .evm, Array(String(repeating: "a", count: 63).utf8)),
            ("hex with a non-digit", .evm, Array(("0x" + String(repeating: "a", count: 63) + "g").utf8)),
            ("solana 33 bytes", .solana, [UInt8](repeating: 9, count: 33)),
            ("solana keypair mismatch", .solana, mismatched),
            ("solana base58 of 32 characters", .solana, Array(String(repeating: "2", count: 32).utf8) + [0x20]),
            ("solana base58 not 32 or 64 bytes", .solana, Array(Base58.encode([UInt8](repeating: 5, count: 40)).utf8)),
        ]
        for (name, family, bytes) in cases {
            do {
                _ = try await harness.client.importWallet(
                    privateKey: SecretBytes(bytes), networkFamily: family, verifier: harness.verifier)
                Issue.record("\(name): imported")
            } catch let error as WaasError {
                #expect(error.code == .invalidRequest, "\(name): \(error)")
                #expect(!error.message.contains(Base16.encode(bytes)) && !error.message.contains("aaaa"), "\(name)")
            }
        }
        #expect(cases.count == 9)
        #expect(try await harness.wallets().isEmpty)
        // n - 1 is the largest valid scalar.
        let top = try await harness.client.importWallet(
            privateKey: SecretBytes(orderMinusOne), networkFamily: .evm, verifier: harness.verifier)
        #expect(top.address == (try Secp256k1.PrivateKey(SecretBytes(orderMinusOne))).ethereumAddress.checksummed)
    }

    @Test(arguments: AccessTransport.allCases)
    func aSealedKeyCannotBeReplayedIntoAnotherTypeOrReference(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let key = Ed25519.PrivateKey.generate()
        let (keyId, publicKey) = try await harness.client.recipientKey(verifier: harness.verifier)
        let bent: [(String, ImportWalletRequest)] = [
            (
                "other reference",
                try harness.sealedRequest(
                    key.seed, keyId: keyId, publicKey: publicKey, suite: .default, networkFamily: .solana,
                    reference: "b", sealedFor: (.solana, "a"))
            ),
            (
                "reference dropped",
                try harness.sealedRequest(
                    key.seed, keyId: keyId, publicKey: publicKey, suite: .default, networkFamily: .solana,
                    sealedFor: (.solana, ""))
            ),
            (
                "other family",
                try harness.sealedRequest(
                    key.seed, keyId: keyId, publicKey: publicKey, suite: .default, networkFamily: .evm,
                    sealedFor: (.solana, nil))
            ),
        ]
        for (name, request) in bent {
            await expectWaasError(.invalidRequest) {
                _ = try await harness.client.call(.importWallet, request, as: WalletResponse.self)
            }
            _ = name
        }
        #expect(try await harness.wallets().isEmpty)
        let good = try harness.sealedRequest(
            key.seed, keyId: keyId, publicKey: publicKey, suite: .default, networkFamily: .solana, reference: "a")
        let wallet = try await harness.client.call(.importWallet, good, as: WalletResponse.self).wallet
        #expect(wallet.address == key.solanaAddress && wallet.reference == "a")
    }

    @Test(arguments: AccessTransport.allCases)
    func malformedRequestsAreInvalid(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        await expectWaasError(.invalidRequest) {
            _ = try await harness.client.call(
                .getRecipientKey, GetRecipientKeyRequest(suite: "p384-sha384-aes256gcm"),
                as: GetRecipientKeyResponse.self)
        }
        await expectWaasError(.invalidRequest) {
            _ = try await harness.client.call(
                .getRecipientKey, GetRecipientKeyRequest(purpose: "signing", suite: ImportSuite.default.rawValue),
                as: GetRecipientKeyResponse.self)
        }
        let (keyId, publicKey) = try await harness.client.recipientKey(verifier: harness.verifier)
        let key = Secp256k1.PrivateKey.generate()
        var request = try harness.sealedRequest(
            key.secretBytes, keyId: keyId, publicKey: publicKey, suite: .default, networkFamily: .evm)
        var notCanonical = request
        notCanonical.keyMaterial.ciphertext = request.keyMaterial.ciphertext + "\n"
        var otherSuite = request
        otherSuite.keyMaterial.suite = ImportSuite.p256SHA256ChaCha20Poly1305.rawValue
        var otherFormat = request
        otherFormat.format = "keystore"
        for bent in [notCanonical, otherSuite, otherFormat] {
            await expectWaasError(.invalidRequest) {
                _ = try await harness.client.call(.importWallet, bent, as: WalletResponse.self)
            }
        }
        request.networkFamily = .unknown("bitcoin")
        await expectWaasError(.unsupportedWalletType) {
            _ = try await harness.client.call(.importWallet, request, as: WalletResponse.self)
        }
        #expect(try await harness.wallets().isEmpty)
    }
}
