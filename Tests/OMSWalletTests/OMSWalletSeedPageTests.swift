import Foundation
import OMSCore
import OMSEmbedded
import OMSProtocol
import OMSWallet
import Testing
import WalletCrypto

/// Each snippet of the seed page ("Swift sessions and access"), as written there (the publishable key,
/// the placeholder key and the remote credential id aside), against the embedded core and `core serve`.
@Suite struct OMSWalletSeedPageTests {
    // MARK: Read restored session state

    @Test(arguments: CoreKind.allCases) func readRestoredSessionState(_ kind: CoreKind) async throws {
        let fixture = try await SDKFixture.make(kind)
        defer { Task { await fixture.close() } }
        let signedIn = try await fixture.signedIn(email: "Reader@Example.com")
        let address = try #require(signedIn.wallet.session.walletAddress)

        let omsWallet = try fixture.wallet()
        // --- seed snippet ---
        let session = omsWallet.wallet.session

        if let walletAddress = session.walletAddress {
            print("Restored wallet:", walletAddress)
            print("Expires:", session.expiresAt as Any)
            print("Identity:", session.auth?.email as Any)
        }
        // ---
        #expect(session.walletAddress == address)
        #expect(session.expiresAt == signedIn.wallet.session.expiresAt)
        #expect(session.auth?.email == "reader@example.com")
        #expect(session.auth?.method == .idToken)
        #expect(session.auth?.issuer.hasSuffix("/dev") == true)
        _ = try await omsWallet.wallet.listWallets()
    }

    /// The first snippet's defaults: `OMSWallet(publishableKey:)` resolves the core from `$WALLETOPS_HOME`
    /// and the storage scope from `$XDG_DATA_HOME/walletops/sdk/<projectId>`. The environment is passed in
    /// (`init(publishableKey:environment:)`, the same code path) rather than set with setenv, which raced
    /// with processes other tests start and crashed the test binary inside Foundation's Process.run.
    @Test func defaultInitializerRestoresFromTheDefaultScope() async throws {
        let fixture = try await SDKFixture.make(.embedded)
        defer { Task { await fixture.close() } }
        let xdg = fixture.root.appendingPathComponent("xdg")
        let environment = ["WALLETOPS_HOME": fixture.home.path, "XDG_DATA_HOME": xdg.path]
        let first = try OMSWallet(publishableKey: fixture.publishableKey, environment: environment)
        #expect(first.storageDirectory.path == xdg.appendingPathComponent("walletops/sdk/\(fixture.projectId)").path)
        _ = try await first.wallet.signIn(idToken: try await fixture.devToken(email: "default@example.com"))

        let omsWallet = try OMSWallet(publishableKey: fixture.publishableKey, environment: environment)
        let session = omsWallet.wallet.session

        if let walletAddress = session.walletAddress {
            print("Restored wallet:", walletAddress)
            print("Expires:", session.expiresAt as Any)
            print("Identity:", session.auth?.email as Any)
        }
        #expect(session.walletAddress == first.wallet.session.walletAddress)
        #expect(session.auth?.email == "default@example.com")
    }

    // MARK: Observe expiration

    @Test(arguments: CoreKind.allCases) func observeExpiration(_ kind: CoreKind) async throws {
        let fixture = try await SDKFixture.make(kind)
        defer { Task { await fixture.close() } }
        let clock = ManualWalletClock()
        let omsWallet = try await fixture.signedIn(clock: clock)
        let recorder = ExpiryRecorder()
        let kept = omsWallet.wallet.addSessionExpiredObserver { event in recorder.record(event) }

        // --- seed snippet ---
        let expiryObservation = omsWallet.wallet.addSessionExpiredObserver { event in
            print("Expired wallet:", event.session.walletAddress ?? "unknown")
            print("Expired at:", event.expiredAt)
            recorder.record(event)
        }

        // Cancel when the owner no longer needs notifications.
        expiryObservation.cancel()
        // ---
        clock.advance(by: 604_800)
        #expect(await recorder.wait(for: 1))
        try await Task.sleep(for: .milliseconds(100))
        // Only the observer that was kept fired: the cancelled one did not.
        #expect(recorder.received.count == 1)
        #expect(recorder.received.first?.session.walletAddress == omsWallet.wallet.session.walletAddress)
        withExtendedLifetime(kept) {}
    }

    // MARK: List, switch, and create wallets

    @Test(arguments: CoreKind.allCases) func listSwitchAndCreateWallets(_ kind: CoreKind) async throws {
        let fixture = try await SDKFixture.make(kind)
        defer { Task { await fixture.close() } }
        let omsWallet = try await fixture.signedIn()
        let before = omsWallet.wallet.session
        let extra = try await omsWallet.wallet.createWallet(reference: "secondary")
        _ = try await omsWallet.wallet.useWallet(walletId: try #require(before.walletId))

        // --- seed snippet ---
        let wallets = try await omsWallet.wallet.listWallets()

        if let secondary = wallets.dropFirst().first {
            let selected = try await omsWallet.wallet.useWallet(
                walletId: secondary.id
            )
            print("Selected:", selected.walletAddress)
        }
        // ---
        #expect(wallets.count == 2)
        #expect(omsWallet.wallet.session.walletAddress == extra.wallet.address)

        // --- seed snippet ---
        let created = try await omsWallet.wallet.createWallet(
            reference: "trading"
        )

        print("Created:", created.wallet.address)
        // ---
        #expect(created.wallet.reference == "trading")
        #expect(created.wallet.walletType == .ethereum && created.wallet.keyOrigin == .enclave)
        #expect(omsWallet.wallet.session.walletAddress == created.wallet.address)
        // Expiry and auth metadata are kept across use and create.
        #expect(omsWallet.wallet.session.expiresAt == before.expiresAt)
        #expect(omsWallet.wallet.session.auth == before.auth)

        // --- seed snippet ---
        let solana = try await omsWallet.wallet.createWallet(
            walletType: .solana,
            reference: "solana-primary"
        )
        // ---
        #expect(solana.wallet.walletType == .solana)
        #expect(try Base58.decode(solana.wallet.address).count == 32)
        #expect(omsWallet.wallet.session.walletType == .solana)
        #expect(omsWallet.wallet.session.expiresAt == before.expiresAt)

        // The switch is persisted: a new instance restores the Solana wallet.
        #expect(try fixture.wallet().wallet.session.walletAddress == solana.wallet.address)
        #expect(try await omsWallet.wallet.listWallets().count == 4)
    }

    // MARK: Import and activate a wallet

    @Test(arguments: CoreKind.allCases) func importAndActivateAWallet(_ kind: CoreKind) async throws {
        let fixture = try await SDKFixture.make(kind)
        defer { Task { await fixture.close() } }
        let omsWallet = try await fixture.signedIn()
        let legacy = Secp256k1.PrivateKey.generate()
        let hex = "0x" + Base16.encode(legacy.secretBytes.unsafeCopy())

        // --- seed snippet (the placeholder "0x..." replaced by a disposable test key) ---
        let imported = try await omsWallet.wallet.importWallet(
            privateKey: .ethereum(hex),  // Supply the key from your secure migration flow.
            reference: "imported-wallet"
        )

        print(imported.wallet.keyOrigin == .imported)
        // ---
        #expect(imported.wallet.keyOrigin == .imported)
        #expect(imported.wallet.address == legacy.ethereumAddress.checksummed)
        #expect(omsWallet.wallet.session.walletAddress == imported.wallet.address)
        #expect(omsWallet.wallet.session.keyOrigin == .imported)
        #expect(imported.session.expiresAt == omsWallet.wallet.session.expiresAt)
        #expect(omsWallet.wallet.session.auth?.email == "user@example.com")

        // The placeholder as written is refused locally.
        let placeholder = await walletError {
            _ = try await omsWallet.wallet.importWallet(privateKey: .ethereum("0x..."), reference: "imported-wallet")
        }
        #expect(placeholder?.code == .validationError)
        #expect(placeholder?.operation == "wallet.importWallet")

        // The same address again: walletAddressAlreadyImported, and the active wallet is unchanged.
        _ = try await omsWallet.wallet.createWallet(reference: "other")
        let active = omsWallet.wallet.session.walletAddress
        let duplicate = await walletError {
            _ = try await omsWallet.wallet.importWallet(privateKey: .ethereum(legacy.secretBytes))
        }
        #expect(duplicate?.code == .walletAddressAlreadyImported)
        #expect(duplicate?.serviceError?.code == .addressAlreadyImported)
        #expect(duplicate?.status == 409)
        #expect(omsWallet.wallet.session.walletAddress == active)

        // Solana: a 64-byte keypair as base58.
        let seed = Ed25519.PrivateKey.generate()
        let keypair = seed.seed.unsafeCopy() + seed.publicKey.rawRepresentation
        let solana = try await omsWallet.wallet.importWallet(privateKey: .solana(Base58.encode(keypair)))
        #expect(solana.wallet.walletType == .solana && solana.wallet.keyOrigin == .imported)
        #expect(solana.wallet.address == seed.solanaAddress)
    }

    // MARK: Request a wallet ID token

    @Test(arguments: CoreKind.allCases) func requestAWalletIdToken(_ kind: CoreKind) async throws {
        let fixture = try await SDKFixture.make(kind)
        defer { Task { await fixture.close() } }
        let omsWallet = try await fixture.signedIn(email: "token@example.com")

        // --- seed snippet ---
        let walletIdToken = try await omsWallet.wallet.getIdToken(
            ttlSeconds: 3_600,
            customClaims: [
                "role": .string("member")
            ]
        )
        // ---
        let jwks = try await WaasClient(
            transport: InProcessTransport(handler: fixture.service),
            publishableKey: try PublishableKey(fixture.publishableKey)
        ).call(.getJWKS, Empty(), as: GetJWKSResponse.self)
        let keys = JWKSet(
            keys: try jwks.keys.map {
                try JWK(jsonString: String(decoding: try WaasClient.encodeBody($0), as: UTF8.self))
            })
        let jwt = try JWT.verify(
            walletIdToken, keys: keys,
            validation: JWT.Validation(issuer: fixture.service.issuer, audience: fixture.projectId, now: Date()))
        #expect(jwt.subject == omsWallet.wallet.session.walletId)
        #expect(jwt.claims["wallet_address"]?.stringValue == omsWallet.wallet.session.walletAddress)
        #expect(jwt.claims["role"]?.stringValue == "member")
        #expect(jwt.claims["email"]?.stringValue == "token@example.com")
        let lifetime = (jwt.expiration?.timeIntervalSince1970 ?? 0) - (jwt.issuedAt?.timeIntervalSince1970 ?? 0)
        #expect(lifetime == 3_600)
    }

    // MARK: List and revoke access grants

    @Test(arguments: CoreKind.allCases) func listAndRevokeAccessGrants(_ kind: CoreKind) async throws {
        let fixture = try await SDKFixture.make(kind)
        defer { Task { await fixture.close() } }
        let omsWallet = try await fixture.signedIn(email: "owner@example.com")
        // A second device of the same account: a direct grant that is not the caller.
        let other = try await fixture.signedIn(email: "owner@example.com", scope: fixture.newScope())
        #expect(other.wallet.session.walletId == omsWallet.wallet.session.walletId)
        // A remote smart session on the wallet.
        let remote = try await fixture.registerRemoteCredential()
        let authorized = try await omsWallet.wallet.authorizeRemoteAccess(
            credentialId: remote.credentialId, network: .polygonAmoy,
            grants: [.nativeTransfer(to: "0x1111111111111111111111111111111111111111", limit: "1000")],
            expiresAt: ISO8601DateFormatter().string(from: Date().addingTimeInterval(3_600)))

        // --- seed snippet ---
        let grants = try await omsWallet.wallet.listAccess()

        for grant in grants {
            switch grant {
            case .direct(let credential):
                print(credential.credentialId, credential.isCaller)
            case .remote(let remote):
                print(remote.credential.credentialId, remote.sessionId)
                print(remote.metadata, remote.grants)
            }
        }
        // ---
        #expect(grants.count == 3)
        #expect(grants.filter(\.credential.isCaller).count == 1)
        let remoteGrant = try #require(
            grants.compactMap { grant -> RemoteAccess? in
                if case .remote(let remote) = grant { return remote }
                return nil
            }.first)
        #expect(remoteGrant.sessionId == authorized.sessionId)
        #expect(remoteGrant.metadata.appName == "Trading Bot")
        #expect(remoteGrant.grants.count == 1)

        // --- seed snippet ---
        var pages = 0
        var seen = 0
        for try await page in omsWallet.wallet.listAccessPages(pageSize: 25) {
            for grant in page.grants {
                print(grant.credential.credentialId, grant.credential.isCaller)
                seen += 1
            }
            pages += 1
        }
        // ---
        #expect(pages == 1 && seen == 3)
        // One grant per page: three pages, the same grants in the same order.
        var small: [AccessGrant] = []
        for try await page in omsWallet.wallet.listAccessPages(pageSize: 1) { small += page.grants }
        #expect(small == grants)
        let firstPage = try await omsWallet.wallet.listAccessPage(pageSize: 2, cursor: nil, type: .direct)
        #expect(firstPage.grants.count == 2 && firstPage.grants.allSatisfy { $0.credential.type == .direct })

        // --- seed snippet (revokes the first non-caller grant: the other device) ---
        if let grant = grants.first(where: { !$0.credential.isCaller }) {
            switch grant {
            case .direct(let credential):
                try await omsWallet.wallet.revokeAccess(
                    credentialId: credential.credentialId
                )
            case .remote(let remote):
                try await omsWallet.wallet.revokeAccess(
                    credentialId: remote.credential.credentialId,
                    sessionId: remote.sessionId
                )
            }
        }
        // ---
        #expect(try await omsWallet.wallet.listAccess().count == 2)
        // The revoked device can no longer make requests; its local session is untouched until then.
        let refused = await walletError { _ = try await other.wallet.listWallets() }
        #expect(refused?.code == .httpError && refused?.status == 401)

        // Revoking the remote session by its id.
        try await omsWallet.wallet.revokeAccess(
            credentialId: remoteGrant.credential.credentialId, sessionId: remoteGrant.sessionId)
        let left = try await omsWallet.wallet.listAccess()
        #expect(left.count == 1 && left[0].credential.isCaller)

        // Revoking the caller ends the local session.
        try await omsWallet.wallet.revokeAccess(credentialId: left[0].credential.credentialId)
        #expect(omsWallet.wallet.session == .empty)
        let missing = await walletError { _ = try await omsWallet.wallet.listWallets() }
        #expect(missing?.code == .sessionMissing)
        #expect(try fixture.wallet().wallet.session == .empty)
    }

    // MARK: Authorize remote access

    @Test(arguments: CoreKind.allCases) func authorizeRemoteAccess(_ kind: CoreKind) async throws {
        let fixture = try await SDKFixture.make(kind)
        defer { Task { await fixture.close() } }
        let omsWallet = try await fixture.signedIn()
        let registered = try await fixture.registerRemoteCredential(
            appName: "Amoy Bot", appUrl: "https://amoy.example.com")

        // --- seed snippet (REMOTE_CREDENTIAL_ID replaced by a registered remote credential) ---
        let credentialId = registered.credentialId
        let metadata = try await omsWallet.wallet.inspectRemoteCredential(
            credentialId: credentialId
        )

        // Render the returned metadata in your consent UI and continue only after approval.
        print(metadata.appName, metadata.appUrl)

        let session = try await omsWallet.wallet.authorizeRemoteAccess(
            credentialId: credentialId,
            network: .polygonAmoy,
            grants: [
                .nativeTransfer(
                    to: "0x1111111111111111111111111111111111111111",
                    // Cumulative 0.001 POL limit in wei.
                    limit: "1000000000000000"
                )
            ],
            expiresAt: ISO8601DateFormatter().string(
                from: Date().addingTimeInterval(3_600)
            )
        )

        let details = try await omsWallet.wallet.getRemoteAccessSession(
            sessionId: session.sessionId
        )
        let usage = try await omsWallet.wallet.getRemoteAccessSessionUsage(
            sessionId: session.sessionId,
            network: .polygonAmoy
        )
        // ---
        #expect(metadata.appName == "Amoy Bot" && metadata.appUrl == "https://amoy.example.com")
        #expect(details.sessionId == session.sessionId)
        #expect(details.walletId == omsWallet.wallet.session.walletId)
        #expect(details.chainId == "80002")
        #expect(details.signerAddress.lowercased() == credentialId.lowercased())
        #expect(
            details.grants == [
                .nativeTransfer(to: "0x1111111111111111111111111111111111111111", limit: "1000000000000000")
            ])
        #expect(usage.entries.count == 1)
        #expect(usage.entries.first?.used ?? "0" == "0")

        // Local checks refuse bad grants before any request.
        for bad in [
            Grant.nativeTransfer(to: "0x1234", limit: "1"),
            .nativeTransfer(to: "0x1111111111111111111111111111111111111111", limit: "01"),
            .nativeTransfer(to: "0x1111111111111111111111111111111111111111", limit: "-1"),
        ] {
            let refused = await walletError {
                _ = try await omsWallet.wallet.authorizeRemoteAccess(
                    credentialId: credentialId, network: .polygonAmoy, grants: [bad], expiresAt: "2099-01-01T00:00:00Z")
            }
            #expect(refused?.code == .validationError && refused?.operation == "wallet.authorizeRemoteAccess")
        }
        let empty = await walletError {
            _ = try await omsWallet.wallet.authorizeRemoteAccess(
                credentialId: credentialId, network: .polygonAmoy, grants: [], expiresAt: "2099-01-01T00:00:00Z")
        }
        #expect(empty?.code == .validationError)
        // Remote access needs an Ethereum wallet.
        _ = try await omsWallet.wallet.createWallet(walletType: .solana)
        let solana = await walletError {
            _ = try await omsWallet.wallet.authorizeRemoteAccess(
                credentialId: credentialId, network: .polygonAmoy,
                grants: [.erc20Transfer(token: "0x2222222222222222222222222222222222222222", limit: "5")],
                expiresAt: "2099-01-01T00:00:00Z")
        }
        #expect(solana?.code == .validationError)
    }

    // MARK: Sign out

    @Test(arguments: CoreKind.allCases) func signOut(_ kind: CoreKind) async throws {
        let fixture = try await SDKFixture.make(kind)
        defer { Task { await fixture.close() } }
        let omsWallet = try await fixture.signedIn()
        let credentialFiles = ["session.json", "credential.key", "wrapping.key"]
        for name in credentialFiles {
            #expect(FileManager.default.fileExists(atPath: fixture.scope.appendingPathComponent(name).path))
        }
        // Another device keeps its access: sign-out revokes nothing.
        let other = try await fixture.signedIn(scope: fixture.newScope())

        // --- seed snippet ---
        try omsWallet.wallet.signOut()
        // ---
        #expect(omsWallet.wallet.session == .empty)
        for name in credentialFiles {
            #expect(!FileManager.default.fileExists(atPath: fixture.scope.appendingPathComponent(name).path))
        }
        let missing = await walletError { _ = try await omsWallet.wallet.listWallets() }
        #expect(missing?.code == .sessionMissing)
        #expect(try fixture.wallet().wallet.session == .empty)
        #expect(try await other.wallet.listWallets().count == 1)
        // A signed-out SDK can sign in again.
        _ = try await omsWallet.wallet.signIn(idToken: try await fixture.devToken(email: "user@example.com"))
        #expect(omsWallet.wallet.session.walletAddress == other.wallet.session.walletAddress)
    }
}
