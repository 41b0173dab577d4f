import Foundation
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

/// A recipient key lives 5 minutes, serves one import, and only for the credential that asked for it.
@Suite struct ImportRecipientKeyTests {
    @Test(arguments: AccessTransport.allCases)
    func anotherCredentialGetsKeyNotFound(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let (keyId, publicKey) = try await harness.client.recipientKey(verifier: harness.verifier)
        let key = Secp256k1.PrivateKey.generate()
        let request = try harness.sealedRequest(
            key.secretBytes, keyId: keyId, publicKey: publicKey, suite: .default, networkFamily: .evm)
        // The same user signed in again (another credential), and another user.
        let (sameUser, _) = try await harness.core.signIn()
        let (otherUser, _) = try await harness.core.signIn(email: "other@example.com")
        for client in [sameUser, otherUser] {
            await expectWaasError(.keyNotFound) {
                _ = try await client.call(.importWallet, request, as: WalletResponse.self)
            }
        }
        #expect(try await harness.wallets(sameUser).isEmpty)
        let wallet = try await harness.client.call(.importWallet, request, as: WalletResponse.self).wallet
        #expect(wallet.address == key.ethereumAddress.checksummed)
    }

    @Test(arguments: AccessTransport.allCases)
    func anExpiredKeyGetsKeyExpired(_ transport: AccessTransport) async throws {
        let clock = ManualClock()
        let harness = try await ImportHarness(transport, clock: clock)
        defer { harness.remove() }
        let (keyId, publicKey) = try await harness.client.recipientKey(
            suite: .x25519SHA256AES256GCM, verifier: harness.verifier)
        let key = Ed25519.PrivateKey.generate()
        let request = try harness.sealedRequest(
            key.seed, keyId: keyId, publicKey: publicKey, suite: .x25519SHA256AES256GCM, networkFamily: .solana)
        clock.advance(by: 300)
        // At exactly 5 minutes the key still serves; one second later it has expired.
        let probe = try harness.sealedRequest(
            key.seed, keyId: keyId, publicKey: publicKey, suite: .x25519SHA256AES256GCM, networkFamily: .solana,
            sealedFor: (.solana, "another reference"))
        await expectWaasError(.invalidRequest) {
            _ = try await harness.client.call(.importWallet, probe, as: WalletResponse.self)
        }
        clock.advance(by: 1)
        await expectWaasError(.keyExpired) {
            _ = try await harness.client.call(.importWallet, request, as: WalletResponse.self)
        }
        #expect(try await harness.wallets().isEmpty)
    }

    @Test(arguments: AccessTransport.allCases)
    func aKeyServesOneImport(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let (keyId, publicKey) = try await harness.client.recipientKey(
            suite: .x25519SHA256ChaCha20Poly1305, verifier: harness.verifier)
        let first = Secp256k1.PrivateKey.generate()
        let second = Secp256k1.PrivateKey.generate()
        let one = try harness.sealedRequest(
            first.secretBytes, keyId: keyId, publicKey: publicKey, suite: .x25519SHA256ChaCha20Poly1305,
            networkFamily: .evm)
        let two = try harness.sealedRequest(
            second.secretBytes, keyId: keyId, publicKey: publicKey, suite: .x25519SHA256ChaCha20Poly1305,
            networkFamily: .evm)
        _ = try await harness.client.call(.importWallet, one, as: WalletResponse.self)
        await expectWaasError(.keyNotFound) {
            _ = try await harness.client.call(.importWallet, two, as: WalletResponse.self)
        }
        #expect(try await harness.wallets().map(\.address) == [first.ethereumAddress.checksummed])
    }

    @Test(arguments: AccessTransport.allCases)
    func anUnknownKeyIdGetsKeyNotFound(_ transport: AccessTransport) async throws {
        let harness = try await ImportHarness(transport)
        defer { harness.remove() }
        let (_, publicKey) = try await harness.client.recipientKey(verifier: harness.verifier)
        let request = try harness.sealedRequest(
            Secp256k1.PrivateKey.generate().secretBytes, keyId: "rk_1", publicKey: publicKey, suite: .default,
            networkFamily: .evm)
        await expectWaasError(.keyNotFound) {
            _ = try await harness.client.call(.importWallet, request, as: WalletResponse.self)
        }
    }
}
