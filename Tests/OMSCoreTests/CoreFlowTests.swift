import Foundation
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

@Suite struct CoreFlowTests {
    @Test(arguments: TransportKind.allCases)
    func signInCreateListAndIssueAToken(_ kind: TransportKind) async throws {
        try await CoreFixture.with(kind) { core in try await Self.flow(core) }
    }

    static func flow(_ core: CoreFixture) async throws {
        let (client, auth) = try await core.signIn(email: "Ops@Example.com")
        #expect(auth.credential.isCaller && auth.credential.type == .direct)
        #expect(auth.identity.iss?.hasSuffix("/dev") == true)
        #expect(auth.email == "ops@example.com")
        #expect(auth.wallets.isEmpty)

        let eth = try await client.call(
            .createWallet, CreateWalletRequest(networkFamily: .evm, reference: "main"), as: WalletResponse.self)
        let sol = try await client.call(
            .createWallet, CreateWalletRequest(networkFamily: .solana), as: WalletResponse.self)
        #expect(eth.wallet.keyOrigin == .enclave && eth.wallet.walletType == .ethereum)
        #expect((try? EthereumAddress(eth.wallet.address)) != nil)
        #expect(sol.wallet.walletType == .solana)
        let solanaKey = try Base58.decode(sol.wallet.address)
        #expect(solanaKey.count == 32)

        let list = try await client.call(.listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
        #expect(list.wallets.map(\.id) == [eth.wallet.id, sol.wallet.id])
        #expect(list.page == nil)

        let used = try await client.call(.useWallet, UseWalletRequest(walletId: sol.wallet.id), as: WalletResponse.self)
        #expect(used.wallet == sol.wallet)

        let token = try await client.call(
            .getIDToken, GetIDTokenRequest(walletId: eth.wallet.id, ttlSeconds: 300, customClaims: ["role": "member"]),
            as: GetIDTokenResponse.self)
        let set = try await core.jwks()
        let jwt = try JWT.verify(
            token.idToken, keys: set,
            validation: JWT.Validation(issuer: core.service.issuer, audience: core.project.id, now: Date()))
        #expect(jwt.subject == eth.wallet.id)
        #expect(jwt.claims["wallet_address"]?.stringValue == eth.wallet.address)
        #expect(jwt.claims["wallet_type"]?.stringValue == "ethereum")
        #expect(jwt.claims["email"]?.stringValue == "ops@example.com")
        #expect(jwt.claims["role"]?.stringValue == "member")
        #expect(jwt.claims["jti"] != nil && jwt.claims["iat"] != nil)
    }

    @Test func initIsIdempotent() async throws {
        try await CoreFixture.with { core in
            let again = try WaasService.initialize(home: core.home, project: "test")
            #expect(!again.created)
            #expect(again.project == core.project)
            let same = try WaasService.initialize(
                home: core.home, project: "test", publishableKey: core.project.publishableKey)
            #expect(!same.created)
            #expect(throws: CoreHomeError.self) {
                try WaasService.initialize(home: core.home, project: "test", publishableKey: "pk_local_sdbx_test_other")
            }
        }
    }

    /// The fixture's older form (a transport made from the service, a synchronous remove) still works.
    @Test func aFixtureTakesATransportMadeFromTheService() async throws {
        let core = try CoreFixture(clock: SystemClock()) { InProcessTransport(handler: $0) }
        defer { core.remove() }
        let status = try await core.publicClient.call(.status, Empty(), as: StatusResponse.self)
        #expect(status.env == "development" && core.server == nil)
    }
}
