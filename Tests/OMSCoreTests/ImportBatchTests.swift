import Foundation
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

/// `Waas/ImportWallets`: per-item results in request order, duplicates, the single-use recipient key,
/// the batch limits and the attestation of the whole batch.
@Suite struct ImportBatchTests {
    static func ethereum(_ reference: String? = nil) -> (ImportItem, String) {
        let key = Secp256k1.PrivateKey.generate()
        return (
            ImportItem(privateKey: key.secretBytes, networkFamily: .evm, reference: reference),
            key.ethereumAddress.checksummed
        )
    }

    static func expectFailed(
        _ result: ImportItemResult, _ code: WaasErrorCode, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .failed(let error) = result else {
            Issue.record("\(context): expected \(code), got \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, "\(context): \(error)", sourceLocation: sourceLocation)
    }

    static func importedAddress(_ result: ImportItemResult) -> String? {
        if case .imported(let wallet) = result { return wallet.address }
        return nil
    }

    @Test(arguments: AccessTransport.allCases)
    func mixedItemsGetResultsInRequestOrder(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let (first, firstAddress) = Self.ethereum("first")
        let solana = Ed25519.PrivateKey.generate()
        let hexKey = Secp256k1.PrivateKey.generate()
        let longReference = Secp256k1.PrivateKey.generate()
        let invalid: [[UInt8]] = [
            [UInt8](repeating: 7, count: 31), Secp256k1.curveOrder, [UInt8](repeating: 0, count: 32),
        ]
        let items = [
            first,
            ImportItem(privateKey: SecretBytes(invalid[0]), networkFamily: .evm, reference: "short"),
            ImportItem(privateKey: SecretBytes(invalid[1]), networkFamily: .evm),
            ImportItem(privateKey: SecretBytes(invalid[2]), networkFamily: .evm),
            ImportItem(privateKey: solana.seed, networkFamily: .solana),
            ImportItem(
                privateKey: longReference.secretBytes, networkFamily: .evm,
                reference: String(repeating: "r", count: 129)),
            ImportItem(privateKey: Secp256k1.PrivateKey.generate().secretBytes, networkFamily: .unknown("bitcoin")),
            ImportItem(
                privateKey: SecretBytes(Array("0x\(Base16.encode(hexKey.secretBytes.unsafeCopy()))\n".utf8)),
                networkFamily: .evm, reference: ""),
        ]
        let results = try await harness.client.importWallets(items, verifier: harness.verifier)
        #expect(results.count == items.count)
        #expect(Self.importedAddress(results[0]) == firstAddress)
        Self.expectFailed(results[1], .invalidRequest, "31 bytes")
        Self.expectFailed(results[2], .invalidRequest, "scalar = n")
        Self.expectFailed(results[3], .invalidRequest, "zero scalar")
        #expect(Self.importedAddress(results[4]) == solana.solanaAddress)
        Self.expectFailed(results[5], .invalidRequest, "reference of 129 bytes")
        Self.expectFailed(results[6], .unsupportedWalletType, "bitcoin")
        #expect(Self.importedAddress(results[7]) == hexKey.ethereumAddress.checksummed)
        if case .imported(let wallet) = results[0] {
            #expect(wallet.reference == "first" && wallet.keyOrigin == .imported && wallet.networkFamily == .evm)
        }
        // Each refusal names its item, and none shows a byte of a key.
        for (index, result) in results.enumerated() {
            guard case .failed(let error) = result else { continue }
            #expect(error.message.hasPrefix("wallets[\(index)]"), "\(error.message)")
            for secret in invalid + [longReference.secretBytes.unsafeCopy()] where secret.contains(where: { $0 != 0 }) {
                #expect(!error.message.lowercased().contains(Base16.encode(secret)))
            }
        }
        #expect(
            try await harness.wallets().map(\.address)
                == [firstAddress, solana.solanaAddress, hexKey.ethereumAddress.checksummed])
        #expect(harness.wire.count(.getRecipientKey) == 1 && harness.wire.count(.importWallets) == 1)
    }

    @Test(arguments: AccessTransport.allCases)
    func aTamperedOrMovedItemFailsAloneAndLaterItemsStillOpen(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let keys = (0..<7).map { _ in Secp256k1.PrivateKey.generate() }
        let (keyId, publicKey) = try await harness.client.recipientKey(
            suite: .x25519SHA256ChaCha20Poly1305, verifier: harness.verifier)
        var request = try harness.sealedBatch(
            keys.map { ($0.secretBytes, .evm, nil) }, keyId: keyId, publicKey: publicKey,
            suite: .x25519SHA256ChaCha20Poly1305)
        // Item 2 is bent; items 4 and 5 swap places (each is bound to its index); item 6 claims another
        // reference than it was sealed for.
        var bent = CanonicalBase64.decode(request.wallets[2].ciphertext)!
        bent[bent.count / 2] ^= 0x01
        request.wallets[2].ciphertext = CanonicalBase64.encode(bent)
        request.wallets.swapAt(4, 5)
        request.wallets[6].reference = "moved"
        let results = try await harness.send(request).results
        #expect(results.count == 7)
        for index in [0, 1, 3] {
            #expect(results[index].wallet?.address == keys[index].ethereumAddress.checksummed, "item \(index)")
            #expect(results[index].error == nil)
        }
        for index in [2, 4, 5, 6] {
            #expect(results[index].wallet == nil, "item \(index)")
            #expect(results[index].error?.code == WaasErrorCode.invalidRequest.code, "item \(index)")
        }
        #expect(try await harness.wallets().count == 3)
    }

    @Test(arguments: AccessTransport.allCases)
    func duplicatesNameTheWalletOnlyToItsOwner(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let (a, addressA) = Self.ethereum("a")
        let (b, addressB) = Self.ethereum()
        // Within one batch the first wins; the later one gets 7313 with the first's wallet.
        let results = try await harness.client.importWallets([a, b, a], verifier: harness.verifier)
        guard case .imported(let walletA) = results[0], case .imported = results[1],
            case .alreadyImported(let again) = results[2]
        else {
            Issue.record("unexpected results \(results)")
            return
        }
        #expect(walletA.address == addressA && again == walletA)
        // A resumed batch of the same account settles the key without deriving anything.
        let (c, addressC) = Self.ethereum()
        let resumed = try await harness.client.importWallets([c, a], verifier: harness.verifier)
        #expect(Self.importedAddress(resumed[0]) == addressC)
        guard case .alreadyImported(let held) = resumed[1] else {
            Issue.record("expected alreadyImported, got \(resumed[1])")
            return
        }
        #expect(held == walletA)
        // Another account learns only that the address exists.
        let (other, _) = try await harness.core.signIn(email: "other@example.com")
        let (d, addressD) = Self.ethereum()
        let foreign = try await other.importWallets([a, d, b], verifier: harness.verifier)
        Self.expectFailed(foreign[0], .addressAlreadyImported, "another account's key")
        #expect(Self.importedAddress(foreign[1]) == addressD)
        Self.expectFailed(foreign[2], .addressAlreadyImported, "another account's key")
        #expect(try await harness.wallets(other).map(\.address) == [addressD])
        #expect(try await harness.wallets().map(\.address) == [addressA, addressB, addressC])
    }

    @Test(arguments: AccessTransport.allCases)
    func aRecipientKeyServesOneCallOfEitherKind(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        func batch(_ keyId: String, _ publicKey: [UInt8]) throws -> ImportWalletsRequest {
            try harness.sealedBatch(
                [(Secp256k1.PrivateKey.generate().secretBytes, .evm, nil)], keyId: keyId, publicKey: publicKey)
        }
        // Single, then batch.
        var (keyId, publicKey) = try await harness.client.recipientKey(verifier: harness.verifier)
        let single = try harness.sealedRequest(
            Secp256k1.PrivateKey.generate().secretBytes, keyId: keyId, publicKey: publicKey, suite: .default,
            networkFamily: .evm)
        _ = try await harness.client.call(.importWallet, single, as: WalletResponse.self)
        let afterSingle = try batch(keyId, publicKey)
        await expectWaasError(.keyNotFound) { _ = try await harness.send(afterSingle) }
        // Batch, then batch; batch, then single. A batch whose every item fails still uses the key up.
        (keyId, publicKey) = try await harness.client.recipientKey(verifier: harness.verifier)
        let failing = try harness.sealedBatch(
            [(SecretBytes([UInt8](repeating: 0, count: 32)), .evm, nil)], keyId: keyId, publicKey: publicKey)
        #expect(try await harness.send(failing).results.map(\.error?.code) == [WaasErrorCode.invalidRequest.code])
        let second = try batch(keyId, publicKey)
        await expectWaasError(.keyNotFound) { _ = try await harness.send(second) }
        let singleAfter = try harness.sealedRequest(
            Secp256k1.PrivateKey.generate().secretBytes, keyId: keyId, publicKey: publicKey, suite: .default,
            networkFamily: .evm)
        await expectWaasError(.keyNotFound) {
            _ = try await harness.client.call(.importWallet, singleAfter, as: WalletResponse.self)
        }
        // Another credential of the same account cannot use the key.
        (keyId, publicKey) = try await harness.client.recipientKey(verifier: harness.verifier)
        let (sameUser, _) = try await harness.core.signIn()
        let foreign = try batch(keyId, publicKey)
        await expectWaasError(.keyNotFound) { _ = try await harness.send(foreign, client: sameUser) }
        #expect(try await harness.send(foreign).results.first?.wallet != nil)
        #expect(try await harness.wallets().count == 2)
    }

    @Test(arguments: AccessTransport.allCases)
    func anExpiredKeyFailsTheBatch(_ transport: AccessTransport) async throws {
        let clock = ManualClock()
        let harness = try await ImportHarness(transport, clock: clock)
        defer { harness.remove() }
        let (keyId, publicKey) = try await harness.client.recipientKey(verifier: harness.verifier)
        let request = try harness.sealedBatch(
            (0..<3).map { _ in (Secp256k1.PrivateKey.generate().secretBytes, .evm, nil) }, keyId: keyId,
            publicKey: publicKey)
        clock.advance(by: 301)
        await expectWaasError(.keyExpired) { _ = try await harness.send(request) }
        #expect(try await harness.wallets().isEmpty)
    }

    @Test(arguments: AccessTransport.allCases)
    func batchSizesOutside1To4000AreRefused(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let key = Secp256k1.PrivateKey.generate().secretBytes
        // The client refuses before sending anything.
        let tooMany = [ImportItem](repeating: ImportItem(privateKey: key, networkFamily: .evm), count: 4001)
        do {
            _ = try await harness.client.importWallets(tooMany, verifier: harness.verifier)
            Issue.record("4001 items were not refused")
        } catch let error as WaasClientError {
            #expect(error.code == .invalidArgument && error.message.contains("at most 4000"), "\(error)")
        }
        #expect(try await harness.client.importWallets([], verifier: harness.verifier).isEmpty)
        #expect(harness.wire.count(.getRecipientKey) == 0 && harness.wire.count(.importWallets) == 0)
        // The core refuses them too.
        let (keyId, publicKey) = try await harness.client.recipientKey(verifier: harness.verifier)
        var request = try harness.sealedBatch(
            (0..<4001).map { _ in (key, .evm, nil) }, keyId: keyId, publicKey: publicKey)
        do {
            _ = try await harness.send(request)
            Issue.record("4001 items were not refused")
        } catch let error as WaasError {
            #expect(error.code == .invalidRequest && error.message.contains("1 to 4000"), "\(error)")
        }
        request.wallets = []
        await expectWaasError(.invalidRequest) { _ = try await harness.send(request) }
        // Neither refusal used the key up.
        request = try harness.sealedBatch([(key, .evm, nil)], keyId: keyId, publicKey: publicKey)
        #expect(try await harness.send(request).results.first?.wallet != nil)
    }

    @Test func aFullBatchOf1000Imports() async throws {
        let harness = try await ImportHarness(.inProcess)
        defer { harness.remove() }
        let keys = (0..<1000).map { _ in Secp256k1.PrivateKey.generate() }
        let results = try await harness.client.importWallets(
            keys.enumerated().map { ImportItem(privateKey: $1.secretBytes, networkFamily: .evm, reference: "k\($0)") },
            verifier: harness.verifier)
        #expect(results.map(Self.importedAddress) == keys.map { $0.ethereumAddress.checksummed })
        #expect(try await harness.wallets().count == 1000)
    }

    /// A batch of 4,000 keys whose JSON fills the client's byte budget crosses the served core's 1 MiB
    /// body limit; one key more (by bytes) is refused by the client before anything is sent.
    @Test(arguments: AccessTransport.allCases)
    func aBatchAtTheByteBudgetFitsTheBodyLimit(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let keys = (0..<4000).map { _ in Secp256k1.PrivateKey.generate().secretBytes }
        // References of escaped quotes and tabs (two bytes each once escaped), as long as the budget allows.
        let bare = ImportItem(privateKey: keys[0], networkFamily: .evm, reference: "").encodedSize
        let perItem = ImportWalletsRequest.maxWalletsBytes / keys.count - bare
        func reference(_ index: Int) -> String {
            let tag = "r\(index)-"
            return tag + String(repeating: "\"\t", count: (perItem - tag.utf8.count) / 4)
        }
        var items = keys.enumerated().map { ImportItem(privateKey: $1, networkFamily: .evm, reference: reference($0)) }
        let size = items.reduce(0) { $0 + $1.encodedSize }
        #expect(size <= ImportWalletsRequest.maxWalletsBytes && size > ImportWalletsRequest.maxWalletsBytes - 8000)
        let results = try await harness.client.importWallets(items, verifier: harness.verifier)
        #expect(results.compactMap(Self.importedAddress).count == 4000)
        #expect(try await harness.wallets().count == 4000)
        // Longer references push the same count over the budget: refused, nothing sent.
        items[0].reference = reference(0) + String(repeating: "\"", count: 8000)
        let sent = harness.wire.count(.getRecipientKey)
        do {
            _ = try await harness.client.importWallets(items, verifier: harness.verifier)
            Issue.record("a batch above the byte budget was sent")
        } catch let error as WaasClientError {
            #expect(error.code == .invalidArgument && error.message.contains("smaller batches"), "\(error)")
        }
        #expect(harness.wire.count(.getRecipientKey) == sent)
    }

    @Test(arguments: AccessTransport.allCases)
    func anyAttestationFailureFailsTheWholeBatch(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let items = (0..<3).map { _ in Self.ethereum().0 }
        // A document re-signed by another enclave.
        let forger = try TestEnclave()
        harness.wire.rewriteDocument([.importWallets]) { try forger.resign($0) }
        await expectAttestationFailure { _ = try await harness.client.importWallets(items, verifier: harness.verifier) }
        // A reply body changed after signing (user_data no longer binds it).
        harness.wire.tamper([.importWallets]) { _, response in
            response.message.body = Array(
                String(decoding: response.body, as: UTF8.self).replacingOccurrences(
                    of: "\"results\":[{",
                    with: "\"results\":[{\"error\":{\"code\":7313,\"name\":\"x\",\"message\":\"x\"},"
                ).utf8)
        }
        await expectAttestationFailure { _ = try await harness.client.importWallets(items, verifier: harness.verifier) }
        // A forged recipient key's document: no batch is sent at all.
        harness.wire.rewriteDocument([.getRecipientKey]) { try forger.resign($0) }
        let sent = harness.wire.count(.importWallets)
        await expectAttestationFailure { _ = try await harness.client.importWallets(items, verifier: harness.verifier) }
        #expect(harness.wire.count(.importWallets) == sent)
    }

    func expectAttestationFailure(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void)
        async
    {
        do {
            try await body()
            Issue.record("the batch was not refused", sourceLocation: sourceLocation)
        } catch let error as WaasClientError {
            #expect(
                error.code == .attestationVerificationFailed && !error.isRetryable, "\(error)",
                sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected attestationVerificationFailed, got \(error)", sourceLocation: sourceLocation)
        }
    }
}
