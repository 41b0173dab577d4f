import Foundation
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSWallet

/// Error codes, operation names, retryability, and descriptions that never show a secret.
@Suite struct OMSWalletErrorTests {
    @Test func failuresMapToTheReferenceCodes() {
        let cases: [(WaasErrorCode, OMSWalletError.Code, Bool)] = [
            (.commitmentConsumed, .authCommitmentConsumed, false),
            (.addressAlreadyImported, .walletAddressAlreadyImported, false),
            (.walletNotFound, .httpError, false),
            (.internalUnavailable, .httpError, true),
            (.otpRateLimited, .httpError, true),
            (.usageLimitExceeded, .httpError, false),
        ]
        for (service, code, retryable) in cases {
            let wrapped = OMSWalletError.wrap(WaasError(service, "what failed"), operation: "wallet.x")
            let error = wrapped as? OMSWalletError
            #expect(error?.code == code)
            #expect(error?.retryable == retryable)
            #expect(error?.status == service.httpStatus)
            #expect(error?.serviceError?.code == service)
            #expect(
                error?.description
                    == "wallet.x: \(code.rawValue): what failed (HTTP \(service.httpStatus)) [\(service.name) \(service.code)]"
            )
        }
        let attestation = OMSWalletError.wrap(
            WaasClientError(.attestationVerificationFailed, method: .importWallet, "bad chain"),
            operation: "wallet.importWallet")
        #expect((attestation as? OMSWalletError)?.code == .attestationVerificationFailed)
        #expect((attestation as? OMSWalletError)?.retryable == false)
        let invalid = OMSWalletError.wrap(WaasClientError(.invalidResponse, method: .listAccess, "x"), operation: "o")
        #expect((invalid as? OMSWalletError)?.code == .invalidResponse)
        let lost = OMSWalletError.wrap(TransportError(mayHaveBeenDelivered: true, message: "timeout"), operation: "o")
        #expect((lost as? OMSWalletError)?.code == .requestFailed && (lost as? OMSWalletError)?.retryable == false)
        #expect(OMSWalletError.wrap(CancellationError(), operation: "o") is CancellationError)
        #expect(OMSWalletError.Code.allCases.count == 15)
    }

    @Test func unreachableCoreIsARequestFailure() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let sdk = try OMSWallet(
            publishableKey: fixture.publishableKey, core: .remote(URL(string: "http://127.0.0.1:1")!),
            configuration: fixture.configuration())
        let error = await walletError {
            _ = try await sdk.wallet.signIn(idToken: try await fixture.devToken(email: "a@b.c"))
        }
        #expect(error?.code == .requestFailed)
        #expect(error?.operation == "wallet.signIn")
        #expect(error?.retryable == true)
    }

    @Test func descriptionsNeverShowSecrets() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let sdk = try await fixture.signedIn()
        let token = try await fixture.devToken(email: "user@example.com")
        // A token the core refuses (signed by another key): the error names the operation, not the token.
        let dev = try #require(try await fixture.service.devIssuer())
        let forged = try JWT.encode(
            claims: try JWT.decodeUnverified(token).claims, privateKey: try P256.Signing.PrivateKey(), keyID: "dev-1")
        #expect(forged.hasPrefix(String(token.prefix(10))) && !dev.issuer.isEmpty)
        let parts = forged.split(separator: ".")
        let refused = await walletError { _ = try await sdk.wallet.signIn(idToken: forged) }
        #expect(refused?.code == .httpError)
        #expect(refused?.description.contains(String(parts[2].prefix(16))) == false)
        #expect(refused?.description.contains(String(parts[1].prefix(16))) == false)

        let key = Secp256k1.PrivateKey.generate()
        let hex = Base16.encode(key.secretBytes.unsafeCopy())
        let imported = ImportedPrivateKey.ethereum(hex + "zz")
        #expect(!imported.description.contains(hex))
        let invalid = await walletError { _ = try await sdk.wallet.importWallet(privateKey: imported) }
        #expect(invalid?.code == .validationError)
        #expect(invalid?.description.contains(hex) == false)
        #expect(invalid?.description.contains(String(hex.prefix(8))) == false)

        // The session state never carries the key; its JSON names only the public credential.
        let json = String(decoding: try JSONEncoder().encode(sdk.wallet.session), as: UTF8.self)
        #expect(!json.lowercased().contains("private"))
        let invalidToken = await walletError { _ = try await sdk.wallet.signIn(idToken: "not-a-jwt") }
        #expect(invalidToken?.code == .validationError && invalidToken?.operation == "wallet.signIn")
    }

    @Test func importValidationFollowsThePage() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let counter = CountingTransport(InProcessTransport(handler: fixture.service))
        let sdk = try fixture.wallet(transport: counter)
        _ = try await sdk.wallet.signIn(idToken: try await fixture.devToken(email: "import@example.com"))
        let before = counter.count
        let order = "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"
        let seed = Ed25519.PrivateKey.generate()
        let wrongKeypair = seed.seed.unsafeCopy() + Ed25519.PrivateKey.generate().publicKey.rawRepresentation
        let refused: [ImportedPrivateKey] = [
            .ethereum("0x..."), .ethereum(String(repeating: "0", count: 64)), .ethereum(order),
            .ethereum([UInt8](repeating: 1, count: 31)), .solana([UInt8](repeating: 1, count: 33)),
            .solana(wrongKeypair), .solana(String(repeating: "1", count: 32)), .solana("0OIl"),
        ]
        for key in refused {
            let error = await walletError { _ = try await sdk.wallet.importWallet(privateKey: key) }
            #expect(error?.code == .validationError, "\(key)")
        }
        let longReference = await walletError {
            _ = try await sdk.wallet.importWallet(
                privateKey: .ethereum(Secp256k1.PrivateKey.generate().secretBytes),
                reference: String(repeating: "é", count: 65))
        }
        #expect(longReference?.code == .validationError)
        #expect(counter.count == before)
        // Accepted forms: hex with whitespace and an uppercase 0X, raw bytes, a Solana seed as bytes.
        let padded = " 0X" + Base16.encode(Secp256k1.PrivateKey.generate().secretBytes.unsafeCopy()).uppercased() + "\n"
        #expect(try await sdk.wallet.importWallet(privateKey: .ethereum(padded)).wallet.keyOrigin == .imported)
        let solanaSeed = try await sdk.wallet.importWallet(privateKey: .solana(seed.seed.unsafeCopy()))
        #expect(solanaSeed.wallet.address == seed.solanaAddress)
    }

    @Test func remoteCoreWithoutAttestationPolicyRefusesImport() async throws {
        let fixture = try await SDKFixture.make(.remote)
        defer { Task { await fixture.close() } }
        var configuration = fixture.configuration()
        configuration.attestation = nil
        let sdk = try OMSWallet(
            publishableKey: fixture.publishableKey, core: .remote(try #require(fixture.server).baseURL),
            configuration: configuration)
        _ = try await sdk.wallet.signIn(idToken: try await fixture.devToken(email: "pin@example.com"))
        let before = try await sdk.wallet.listWallets().count
        let error = await walletError {
            _ = try await sdk.wallet.importWallet(privateKey: .ethereum(Secp256k1.PrivateKey.generate().secretBytes))
        }
        #expect(error?.code == .attestationVerificationFailed)
        #expect(error?.retryable == false)
        #expect(try await sdk.wallet.listWallets().count == before)

        // With the served core's home named, its attestation-root.pem is the pin.
        let pinned = try OMSWallet(
            publishableKey: fixture.publishableKey, core: fixture.core, configuration: configuration)
        let imported = try await pinned.wallet.importWallet(
            privateKey: .ethereum(Secp256k1.PrivateKey.generate().secretBytes))
        #expect(imported.wallet.keyOrigin == .imported)
    }

    @Test func importAgainstAnotherCoresRootFailsAttestation() async throws {
        let fixture = try await SDKFixture.make(.remote)
        defer { Task { await fixture.close() } }
        let stranger = try await SDKFixture.make(.embedded)
        defer { Task { await stranger.close() } }
        var configuration = fixture.configuration()
        configuration.attestation = .development(root: stranger.attestationRoot)
        let sdk = try OMSWallet(
            publishableKey: fixture.publishableKey, core: fixture.core, configuration: configuration)
        _ = try await sdk.wallet.signInWithDevelopmentIssuer(email: "pin@example.com")
        let before = try await sdk.wallet.listWallets().count
        let error = await walletError {
            _ = try await sdk.wallet.importWallet(privateKey: .ethereum(Secp256k1.PrivateKey.generate().secretBytes))
        }
        #expect(error?.code == .attestationVerificationFailed)
        #expect(try await sdk.wallet.listWallets().count == before)
    }
}
