import Foundation
import OMSEmbedded
import OMSProtocol
import OMSWallet
import Testing
import WalletCrypto

/// What a core offers beyond the protocol reaches the SDK only as the pieces it is handed: a transport, a
/// development issuer, an attestation policy (docs/sdk.md "Creating it").
@Suite struct OMSWalletCoreTests {
    /// A bare transport with the embedded core's pieces given by hand behaves as `.embedded(home:)`:
    /// development sign-in and an attested import, every request through the caller's transport.
    @Test func aTransportWithGivenPiecesSignsInAndImports() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let core = EmbeddedCore(service: fixture.service)
        let counter = CountingTransport(core.transport)
        let sdk = try OMSWallet(
            publishableKey: fixture.publishableKey,
            core: .transport(
                counter, developmentIssuer: core.developmentIssuer, attestation: try await core.attestationPolicy()),
            configuration: OMSWalletConfiguration(storageDirectory: fixture.scope))
        let result = try await sdk.wallet.signInWithDevelopmentIssuer(email: "given@example.com")
        #expect(result.session != nil)
        #expect(sdk.wallet.session.auth?.email == "given@example.com")
        let imported = try await sdk.wallet.importWallet(
            privateKey: .ethereum(Secp256k1.PrivateKey.generate().secretBytes))
        #expect(imported.wallet.keyOrigin == .imported)
        #expect(counter.methods.contains("CommitVerifier") && counter.methods.contains("ImportWallet"))
    }

    /// Without a development issuer or an attestation policy the SDK has no side door to fall back on:
    /// development sign-in is a validation error and import sends no key.
    @Test func aTransportWithoutPiecesRefusesDevelopmentSignInAndImport() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let counter = CountingTransport(EmbeddedCore(service: fixture.service).transport)
        let sdk = try OMSWallet(
            publishableKey: fixture.publishableKey, core: .transport(counter),
            configuration: OMSWalletConfiguration(storageDirectory: fixture.scope))
        let development = await walletError {
            _ = try await sdk.wallet.signInWithDevelopmentIssuer(email: "none@example.com")
        }
        #expect(development?.code == .validationError)
        #expect(development?.operation == "wallet.signInWithDevelopmentIssuer")
        #expect(counter.count == 0)

        _ = try await sdk.wallet.signIn(idToken: try await fixture.devToken(email: "none@example.com"))
        let before = counter.count
        let refused = await walletError {
            _ = try await sdk.wallet.importWallet(privateKey: .ethereum(Secp256k1.PrivateKey.generate().secretBytes))
        }
        #expect(refused?.code == .attestationVerificationFailed)
        #expect(counter.count == before)
    }

    /// A home without a core fails `OMSWallet.init` as a storage error, as the embedded default always did.
    @Test func anEmbeddedHomeWithoutACoreIsAStorageError() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let empty = fixture.root.appendingPathComponent("no-core")
        let error = await walletError {
            _ = try OMSWallet(
                publishableKey: fixture.publishableKey, core: .embedded(home: empty),
                configuration: fixture.configuration())
        }
        #expect(error?.code == .storageError)
        #expect(error?.operation == "OMSWallet.init")
        #expect(error?.message.hasPrefix("cannot open the embedded core:") == true)
    }
}
