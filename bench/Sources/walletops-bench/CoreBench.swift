import Foundation
import HomeLayout
import OMSCore
import OMSProtocol
import WalletCrypto

/// `walletops-bench core`: requests per second the core answers for CreateWallet, ListWallets (a page
/// of 50), GetIDToken, SignMessage and an owner's Prepare + Execute, embedded (in-process transport) and served over HTTP, with 8 concurrent clients,
/// beside the per-request floor: the crypto every such request cannot avoid, measured in the same run.
enum CoreBench {
    static let clientCount = 8

    /// The crypto a request needs whatever the core does around it, in microseconds.
    struct Floor {
        var requestSignature: Double
        var requestVerification: Double
        var secp256k1KeyAndAddress: Double
        var tokenSignature: Double

        static func measure() throws -> Floor {
            let key = try P256.Signing.PrivateKey()
            // A preimage the size of a CreateWallet request's.
            let preimage = Array(
                "POST /v1/Waas/CreateWallet\nnonce: 1796008015106\nscope: prj_bench\n\n{\"networkFamily\":\"evm\"}".utf8
            )
            let signature = try key.signature(for: preimage)
            var seed = [UInt8](repeating: 0x21, count: 32)
            var sink: UInt8 = 0
            let sign = try Measure.microseconds(iterations: 3_000) { sink ^= try key.signature(for: preimage)[0] }
            let verify = Measure.microseconds(iterations: 3_000) {
                if key.publicKey.isValidSignature(signature, for: preimage) { sink ^= 1 }
            }
            let secp = try Measure.microseconds(iterations: 10_000) {
                seed[31] &+= 1
                if seed[31] == 0 { seed[30] &+= 1 }
                sink ^= try Secp256k1.PrivateKey(SecretBytes(seed)).ethereumAddress.bytes[0]
            }
            if sink == 0xff { print("") }  // keeps the work observable
            return Floor(
                requestSignature: sign, requestVerification: verify, secp256k1KeyAndAddress: secp, tokenSignature: sign)
        }

        func microseconds(_ method: WaasMethod) -> Double {
            let request = requestSignature + requestVerification
            switch method {
            case .createWallet: return request + secp256k1KeyAndAddress
            case .getIDToken: return request + tokenSignature
            // Two signed requests, and a secp256k1 signature: at least the key's cost again.
            case .execute: return 2 * request + secp256k1KeyAndAddress
            // The wallet's secp256k1 signature costs at least what deriving a key does.
            case .signMessage: return request + secp256k1KeyAndAddress
            default: return request
            }
        }
    }

    /// A core in a temporary home, served over HTTP on a free loopback port.
    struct Core {
        let home: WalletHome
        let service: WaasService
        let server: WaasHTTPServer
        let publishableKey: PublishableKey

        init() throws {
            home = WalletHome(
                url: FileManager.default.temporaryDirectory.appendingPathComponent(
                    "walletops-bench-\(UUID().uuidString)"))
            let result = try WaasService.initialize(home: home, project: "bench")
            publishableKey = try PublishableKey(result.project.publishableKey)
            service = try WaasService.open(home: home, storeTuning: BenchTuning.current.coreStore)
            server = try WaasHTTPServer.start(handler: service)
        }

        /// `count` clients signed in (one credential each) to the same account.
        func clients(_ transport: any WaasTransport, count: Int) async throws -> [WaasClient] {
            try await CoreBench.signIn(
                service: service, publishableKey: publishableKey, transport: transport, count: count,
                email: "bench@example.com")
        }
    }

    /// `count` clients of `email` signed in (one credential each, a token of the core's development
    /// issuer) to `service`, speaking through `transport`.
    static func signIn(
        service: WaasService, publishableKey: PublishableKey, transport: any WaasTransport, count: Int, email: String
    ) async throws -> [WaasClient] {
        guard let dev = try await service.devIssuer() else {
            throw BenchError("the core has no development issuer (walletops core init makes one)")
        }
        var clients: [WaasClient] = []
        for _ in 0..<count {
            let client = WaasClient(
                transport: transport, publishableKey: publishableKey,
                signer: P256RequestSigner(key: try P256.Signing.PrivateKey()))
            let token = try dev.idToken(email: email, now: service.now)
            let commit = try await client.call(
                .commitVerifier,
                CommitVerifierRequest(
                    identityType: .oidc, authMode: .idToken,
                    metadata: ["iss": dev.issuer, "aud": DevIssuer.audience],
                    handle: Base64URL.encode(SHA256.hash(data: Array(token.utf8)))), as: CommitVerifierResponse.self
            )
            _ = try await client.call(
                .completeAuth,
                CompleteAuthRequest(
                    identityType: .oidc, authMode: .idToken, verifier: commit.verifier, answer: token),
                as: CompleteAuthResponse.self)
            clients.append(client)
        }
        return clients
    }

    /// Requests per second of `body` run `total` times, spread over the clients running concurrently.
    static func rate(
        _ clients: [WaasClient], total: Int, _ body: @escaping @Sendable (WaasClient) async throws -> Void
    ) async throws -> Double {
        for client in clients { try await body(client) }  // warm-up: connections, caches
        let perClient = total / clients.count
        let start = Measure.now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in clients {
                group.addTask { for _ in 0..<perClient { try await body(client) } }
            }
            try await group.waitForAll()
        }
        return Double(perClient * clients.count) / ((Measure.now() - start) / 1e6)
    }

    static func run(total: Int = 2_000) async throws -> String {
        let floor = try Floor.measure()
        let core = try Core()
        defer { try? FileManager.default.removeItem(at: core.home.url) }
        let transports: [(String, any WaasTransport)] = [
            ("in-process", InProcessTransport(handler: core.service)),
            ("HTTP", HTTPTransport(baseURL: core.server.baseURL, maxConnections: clientCount)),
        ]
        var table = Table(header: ["method", "transport", "clients", "req/s", "floor us", "floor req/s/core"])
        for (name, transport) in transports {
            let clients = try await core.clients(transport, count: clientCount)
            let wallet = try await clients[0].call(
                .createWallet, CreateWalletRequest(networkFamily: .evm), as: WalletResponse.self
            ).wallet.id
            let cases: [(WaasMethod, String, @Sendable (WaasClient) async throws -> Void)] = [
                (
                    .createWallet, "CreateWallet",
                    { client in
                        _ = try await client.call(
                            .createWallet, CreateWalletRequest(networkFamily: .evm), as: WalletResponse.self)
                    }
                ),
                (
                    .listWallets, "ListWallets (50)",
                    { client in
                        let page = try await client.call(
                            .listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
                        precondition(page.wallets.count == 50)
                    }
                ),
                (
                    .getIDToken, "GetIDToken",
                    { client in
                        _ = try await client.call(
                            .getIDToken, GetIDTokenRequest(walletId: wallet), as: GetIDTokenResponse.self)
                    }
                ),
                (
                    .signMessage, "SignMessage (EIP-191)",
                    { client in
                        _ = try await client.call(
                            .signMessage, SignMessageRequest(network: "80002", walletId: wallet, message: "bench"),
                            as: SignMessageResponse.self)
                    }
                ),
                (
                    .execute, "Prepare + Execute (owner, 2 requests)",
                    { client in
                        let prepared = try await client.call(
                            .prepareEthereumTransaction,
                            PrepareEthereumTransactionRequest(
                                walletId: wallet, network: "80002", to: "0x1111111111111111111111111111111111111111",
                                value: "1"),
                            as: PrepareResponse.self)
                        _ = try await client.call(
                            .execute, ExecuteRequest(txnId: prepared.txnId), as: TransactionStatusResponse.self)
                    }
                ),
            ]
            for (method, label, body) in cases {
                let perSecond = try await rate(clients, total: total, body)
                let floorMicroseconds = floor.microseconds(method)
                table.add([
                    label, name, "\(clientCount)", format(perSecond, digits: 0), format(floorMicroseconds, digits: 1),
                    format(1e6 / floorMicroseconds, digits: 0),
                ])
            }
        }
        await core.server.stop(grace: .seconds(1))
        let floorLine = String(
            format: "floor parts (this run): request signature %.1f us, verification %.1f us, "
                + "secp256k1 key and address %.1f us, ID-token signature %.1f us; %d cores",
            floor.requestSignature, floor.requestVerification, floor.secp256k1KeyAndAddress, floor.tokenSignature,
            ProcessInfo.processInfo.activeProcessorCount)
        return table.render() + "\n\n" + floorLine
    }
}
