import Foundation
import Jobs
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

@Suite struct CoreConnectionTests {
    @Test func aHomeWithoutACoreIsNamed() throws {
        let home = StoredCredentialTests.temporaryHome()
        let error = #expect(throws: JobsError.self) { try CoreConnection.open(home: home, coreURL: nil) }
        #expect(error?.code == .noCore)
        #expect(error?.message.contains("walletops core init --home \(home.url.path)") == true)
    }

    @Test func devSignInThenSignedInClientFollowsEveryPage() async throws {
        let home = StoredCredentialTests.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let created = try WaasService.initialize(home: home, project: "local")
        let connection = try CoreConnection.open(home: home, coreURL: nil)
        #expect(connection.coreName == "embedded")
        let project = created.project

        let credential = try await SignIn.development(
            email: "Ops@Example.com", connection: connection,
            publishableKey: try PublishableKey(project.publishableKey), lifetime: 3600)
        #expect(credential.identity.email == "ops@example.com")
        #expect(credential.identity.sub == "dev|ops@example.com")
        #expect(credential.projectId == project.id)
        #expect(credential.core == "embedded")
        let expiry = try #require(credential.expiresAtSeconds)
        let now = Int64(Date().timeIntervalSince1970)
        #expect(abs(expiry - (now + 3600)) < 60)
        try credential.save(home: home)

        let (_, stored, client) = try CoreConnection.signedIn(home: home, coreURL: nil)
        #expect(stored.credentialId == credential.credentialId)
        // More than one page (50 by default): the listing must follow the cursor.
        var ids: [String] = []
        for index in 0..<53 {
            let family: NetworkFamily = index.isMultiple(of: 2) ? .evm : .solana
            ids.append(
                try await client.call(
                    .createWallet, CreateWalletRequest(networkFamily: family), as: WalletResponse.self
                ).wallet.id)
        }
        let listed = try await CoreConnection.allWallets(client)
        #expect(listed.map(\.id) == ids)
        #expect(Set(listed.map(\.walletType.rawValue)) == ["ethereum", "solana"])
    }

    @Test func emailOTPSignInReadsTheOutbox() async throws {
        let home = StoredCredentialTests.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let created = try WaasService.initialize(home: home, project: "local")
        let connection = try CoreConnection.open(home: home, coreURL: nil)
        let credential = try await SignIn.emailOTP(
            email: "otp@example.com", connection: connection,
            publishableKey: try PublishableKey(created.project.publishableKey), lifetime: nil
        ) { verifier in try SignIn.outboxCode(home: home, email: "otp@example.com", verifier: verifier) }
        #expect(credential.identity.email == "otp@example.com")

        // A wrong code is refused by the core.
        await #expect(throws: WaasError.self) {
            _ = try await SignIn.emailOTP(
                email: "otp@example.com", connection: connection,
                publishableKey: try PublishableKey(created.project.publishableKey), lifetime: nil
            ) { verifier in
                let code = try SignIn.outboxCode(home: home, email: "otp@example.com", verifier: verifier)
                return code == "000000" ? "000001" : "000000"
            }
        }
    }

    @Test func anIDTokenWithoutIssIsRefusedBeforeAnyRequest() async throws {
        let home = StoredCredentialTests.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let created = try WaasService.initialize(home: home, project: "local")
        let connection = try CoreConnection.open(home: home, coreURL: nil)
        let token = try JWT.encode(
            claims: ["sub": "x", "aud": "a", "exp": 2_000_000_000], privateKey: try P256.Signing.PrivateKey(),
            keyID: "k")
        let error = await #expect(throws: JobsError.self) {
            _ = try await SignIn.idToken(
                token, connection: connection, publishableKey: try PublishableKey(created.project.publishableKey),
                lifetime: nil)
        }
        #expect(error?.message == "the ID token has no iss")
    }
}
