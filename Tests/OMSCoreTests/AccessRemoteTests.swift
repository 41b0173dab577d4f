import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// Remote credentials and AuthorizeRemoteAccess: the rules of smart sessions.
@Suite struct AccessRemoteTests {
    @Test(arguments: AccessTransport.allCases)
    func aRemoteCredentialIsItsSignersAddressWithValidatedMetadata(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let key = Secp256k1.PrivateKey.generate()
        let client = WaasClient(
            transport: world.core.transport, publishableKey: world.core.publishableKey,
            signer: EthereumRequestSigner(key: key))
        func register(_ metadata: CredentialMetadata, lifetime: Int = 3600) async throws -> String {
            try await client.call(
                .registerCredential, RegisterCredentialRequest(lifetime: lifetime, metadata: metadata),
                as: RegisterCredentialResponse.self
            ).credentialId
        }
        let bad: [(String, CredentialMetadata)] = [
            ("empty name", CredentialMetadata(appName: "")),
            ("65-character name", CredentialMetadata(appName: String(repeating: "a", count: 65))),
            ("http url", CredentialMetadata(appUrl: "http://app.example", appName: "A")),
            ("ftp logo", CredentialMetadata(appName: "A", appLogoUrl: "ftp://app.example/logo.png")),
            ("relative url", CredentialMetadata(appUrl: "/app", appName: "A")),
            ("127 look-alike host", CredentialMetadata(appUrl: "http://127.evil.example", appName: "A")),
            (
                "17 custom pairs",
                CredentialMetadata(
                    appName: "A", custom: Dictionary(uniqueKeysWithValues: (0..<17).map { ("k\($0)", "v") }))
            ),
            (
                "257-character value",
                CredentialMetadata(appName: "A", custom: ["k": String(repeating: "v", count: 257)])
            ),
            ("257-character key", CredentialMetadata(appName: "A", custom: [String(repeating: "k", count: 257): "v"])),
        ]
        for (what, metadata) in bad {
            await expectRefusal(.invalidRequest, Comment(rawValue: what)) { _ = try await register(metadata) }
        }
        for lifetime in [0, -5, 2_592_001] {
            await expectRefusal(.invalidRequest, "lifetime \(lifetime)") {
                _ = try await register(CredentialMetadata(appName: "A"), lifetime: lifetime)
            }
        }
        #expect(try await world.dump().filter { $0.hasPrefix("credentials:") }.count == 1)
        let good = CredentialMetadata(
            appUrl: "http://127.0.0.1:8080", appName: String(repeating: "é", count: 64),
            appLogoUrl: "https://app.example/logo.png",
            custom: Dictionary(uniqueKeysWithValues: (0..<16).map { ("k\($0)", String(repeating: "v", count: 256)) }))
        let id = try await register(good, lifetime: 2_592_000)
        #expect(id == key.ethereumAddress.checksummed)
        #expect(try await register(CredentialMetadata(appUrl: "http://localhost:3000/cb", appName: "A")) == id)

        // InspectCredential is public and scoped to the project.
        let inspected = try await world.core.publicClient.call(
            .inspectCredential, InspectCredentialRequest(scope: world.core.project.id, credentialId: id.lowercased()),
            as: InspectCredentialResponse.self)
        #expect(inspected.metadata.appUrl == "http://localhost:3000/cb")
        await expectRefusal(.keyNotFound) {
            _ = try await world.core.publicClient.call(
                .inspectCredential, InspectCredentialRequest(scope: "prj_other", credentialId: id),
                as: InspectCredentialResponse.self)
        }
        await expectRefusal(.keyNotFound) {
            _ = try await world.core.publicClient.call(
                .inspectCredential,
                InspectCredentialRequest(
                    scope: world.core.project.id,
                    credentialId: Secp256k1.PrivateKey.generate().ethereumAddress.checksummed),
                as: InspectCredentialResponse.self)
        }
        // A device credential cannot register as a remote one.
        await expectRefusal(.invalidRequest) {
            _ = try await world.owner.call(
                .registerCredential,
                RegisterCredentialRequest(lifetime: 60, metadata: CredentialMetadata(appName: "A")),
                as: RegisterCredentialResponse.self)
        }
    }

    @Test(arguments: AccessTransport.allCases)
    func revokingARemoteCredentialRetiresEverySessionBoundToIt(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        let other = try await world.remote()
        try await world.authorize(remote)
        try await world.authorize(remote)
        let kept = try await world.authorize(other)
        await expectRefusal(.keyNotFound, "another credential") {
            _ = try await remote.call(
                .revokeCredential, RevokeCredentialRequest(credentialId: other.signer!.credentialId),
                as: OKResponse.self)
        }
        _ = try await remote.call(
            .revokeCredential, RevokeCredentialRequest(credentialId: remote.signer!.credentialId), as: OKResponse.self)
        #expect(try await world.listAll(type: .remote).map(\.sessionId) == [kept.sessionId])
        await expectRefusal(.unauthorized) {
            _ = try await remote.call(.listSessions, ListSessionsRequest(), as: ListSessionsResponse.self)
        }
        await expectRefusal(.keyNotFound) { try await world.authorize(remote) }
        // Registering the revoked key again does not bring it back.
        await expectRefusal(.unauthorized) {
            _ = try await remote.call(
                .registerCredential,
                RegisterCredentialRequest(lifetime: 60, metadata: CredentialMetadata(appName: "A")),
                as: RegisterCredentialResponse.self)
        }
        await expectRefusal(.keyNotFound) {
            _ = try await world.core.publicClient.call(
                .inspectCredential,
                InspectCredentialRequest(scope: world.core.project.id, credentialId: remote.signer!.credentialId),
                as: InspectCredentialResponse.self)
        }
    }

    @Test(arguments: AccessTransport.allCases)
    func onlyTheOwnerOfAnActiveEthereumWalletAuthorizesALiveRemoteCredential(_ transport: AccessTransport) async throws
    {
        let clock = ManualClock()
        let world = try await AccessWorld.make(transport, clock: clock)
        defer { world.remove() }
        let remote = try await world.remote(lifetime: 600)
        await expectRefusal(.unauthorized, "a remote credential") { try await world.authorize(remote, by: remote) }
        let (stranger, _) = try await world.core.signIn(email: "stranger@example.com")
        await expectRefusal(.walletNotFound, "another account's wallet") {
            try await world.authorize(remote, by: stranger)
        }
        let solana = try await world.owner.call(
            .createWallet, CreateWalletRequest(networkFamily: .solana), as: WalletResponse.self)
        await expectRefusal(.unsupportedWalletType) { try await world.authorize(remote, walletId: solana.wallet.id) }
        await expectRefusal(.keyNotFound, "unregistered") { try await world.authorize(world.unregisteredRemote()) }
        clock.advance(by: 601)
        await expectRefusal(.keyExpired, "expired remote credential") { try await world.authorize(remote) }
        #expect(try await world.listAll(type: .remote).isEmpty)
    }

    @Test(arguments: AccessTransport.allCases)
    func theExpiryIsCappedAtTheRemoteCredentialsAndMustBeFutureUTC(_ transport: AccessTransport) async throws {
        let clock = ManualClock()
        let world = try await AccessWorld.make(transport, clock: clock)
        defer { world.remove() }
        let remote = try await world.remote(lifetime: 3600)
        let capped = try await world.authorize(remote, seconds: 7200)
        #expect(capped.expiry == RFC3339.format(world.now + 3600))
        let inside = try await world.authorize(remote, seconds: 1800)
        #expect(inside.expiry == RFC3339.format(world.now + 1800))
        let session = try await world.owner.call(
            .getSession, GetSessionRequest(sessionId: capped.sessionId), as: GetSessionResponse.self
        ).session
        #expect(session.expiresAt == capped.expiry)
        #expect(session.signerAddress == remote.signer!.credentialId)
        #expect(session.walletId == world.wallet.id && session.chainId == "80002")
        func authorize(expiry: String) async throws {
            _ = try await world.owner.call(
                .authorizeRemoteAccess,
                AuthorizeRemoteAccessRequest(
                    credentialId: remote.signer!.credentialId, walletId: world.wallet.id,
                    grants: [.nativeTransfer(to: AccessWorld.receiver, limit: "1")], expiry: expiry,
                    chainId: AccessWorld.amoy), as: AuthorizeRemoteAccessResponse.self)
        }
        for expiry in [
            RFC3339.format(world.now), RFC3339.format(world.now - 10), "2030-01-01T00:00:00+02:00",
            "tomorrow", "", "2030-13-01T00:00:00Z",
        ] {
            await expectRefusal(.invalidRequest, "expiry \(expiry)") { try await authorize(expiry: expiry) }
        }
        try await authorize(expiry: RFC3339.format(world.now + 60).replacingOccurrences(of: "Z", with: "+00:00"))
    }

    @Test(arguments: AccessTransport.allCases)
    func grantsAreOneToSixteenDistinctWellFormedAllowances(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        func receiver(_ i: Int) -> String { "0x" + String(format: "%040x", i + 1) }
        let sixteen = (0..<16).map { Grant.nativeTransfer(to: receiver($0), limit: "1") }
        try await world.authorize(remote, grants: sixteen)
        let cases: [(String, [Grant])] = [
            ("no grants", []),
            ("17 grants", (0..<17).map { Grant.nativeTransfer(to: receiver($0), limit: "1") }),
            (
                "duplicate receivers",
                [
                    .nativeTransfer(to: AccessWorld.receiver, limit: "1"),
                    .nativeTransfer(to: AccessWorld.receiver, limit: "2"),
                ]
            ),
            (
                "duplicate in another case",
                [
                    .nativeTransfer(to: "0xabcdefabcdefabcdefabcdefabcdefabcdefabcd", limit: "1"),
                    .nativeTransfer(to: "0xABCDEFABCDEFABCDEFABCDEFABCDEFABCDEFABCD", limit: "1"),
                ]
            ),
            (
                "duplicate shared allowance",
                [
                    .erc20Transfer(token: AccessWorld.token, limit: "1"),
                    .erc20Transfer(token: AccessWorld.token, limit: "5"),
                ]
            ),
            ("kind without payload", [Grant(kind: .nativeTransfer)]),
            (
                "mismatched payload",
                [Grant(kind: .erc20Transfer, nativeTransfer: NativeTransferGrant(to: AccessWorld.receiver, limit: "1"))]
            ),
            ("unknown kind", [Grant(kind: .unknown("swap"))]),
        ]
        for (what, grants) in cases {
            await expectRefusal(.invalidRequest, Comment(rawValue: what)) {
                try await world.authorize(remote, grants: grants)
            }
        }
        // A shared allowance and per-receiver allowances of one token are distinct.
        try await world.authorize(
            remote,
            grants: [
                .erc20Transfer(token: AccessWorld.token, limit: "1"),
                .erc20Transfer(token: AccessWorld.token, to: AccessWorld.receiver, limit: "1", cumulative: false),
                .nativeTransfer(to: AccessWorld.receiver, limit: "1"),
            ])
        #expect(try await world.listAll(type: .remote).count == 2)
    }

    @Test(arguments: AccessTransport.allCases)
    func limitsAreCanonicalUnsignedDecimalsUpTo2To256Minus1(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        let max = TokenAmount.max.decimalString
        for limit in ["0", "1", "1000000000000000", max] {
            try await world.authorize(remote, grants: [.nativeTransfer(to: AccessWorld.receiver, limit: limit)])
        }
        let overMax = max.dropLast() + "6"  // 2^256
        for limit in ["", "01", "00", "-1", "+1", "1.0", "1e3", " 1", "1 ", "0x10", String(overMax), max + "0", "١"] {
            await expectRefusal(.invalidRequest, "limit \(limit)") {
                try await world.authorize(remote, grants: [.nativeTransfer(to: AccessWorld.receiver, limit: limit)])
            }
        }
    }

    @Test(arguments: AccessTransport.allCases)
    func addressesAre0xAnd40HexInAnyCase(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        let lower = "0xabcdefabcdefabcdefabcdefabcdefabcdefabcd"
        for address in [
            lower, lower.uppercased().replacingOccurrences(of: "0X", with: "0x"),
            "0xAbcdefabcdefabcdefabcdefabcdefabcdefabcd",
        ] {
            try await world.authorize(remote, grants: [.erc20Transfer(token: address, to: address, limit: "1")])
        }
        for address in [
            "abcdefabcdefabcdefabcdefabcdefabcdefabcd", "0xabcdefabcdefabcdefabcdefabcdefabcdefabc",
            "0xabcdefabcdefabcdefabcdefabcdefabcdefabcdef", "0xgbcdefabcdefabcdefabcdefabcdefabcdefabcd",
            "0X" + lower.dropFirst(2), "",
        ] {
            await expectRefusal(.invalidRequest, "to \(address)") {
                try await world.authorize(remote, grants: [.nativeTransfer(to: address, limit: "1")])
            }
            await expectRefusal(.invalidRequest, "token \(address)") {
                try await world.authorize(remote, grants: [.erc20Transfer(token: address, limit: "1")])
            }
        }
    }

    @Test(arguments: AccessTransport.allCases)
    func theChainIdIsACanonicalDecimalOfAKnownNetwork(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        func authorize(chain: String) async throws {
            _ = try await world.owner.call(
                .authorizeRemoteAccess,
                AuthorizeRemoteAccessRequest(
                    credentialId: remote.signer!.credentialId, walletId: world.wallet.id,
                    grants: [.nativeTransfer(to: AccessWorld.receiver, limit: "1")],
                    expiry: RFC3339.format(world.now + 60), chainId: chain), as: AuthorizeRemoteAccessResponse.self)
        }
        for network in Network.all { try await authorize(chain: network.wireChainId) }
        for chain in ["080002", "0x13882", "amoy", "", "-1", "80002.0"] {
            await expectRefusal(.invalidRequest, "chain \(chain)") { try await authorize(chain: chain) }
        }
        await expectRefusal(.unsupportedNetwork) { try await authorize(chain: "999") }
    }

    @Test(arguments: AccessTransport.allCases)
    func aGivenSessionIdMustExistAndIsReauthorizedInPlace(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        let other = try await world.remote()
        await expectRefusal(.keyNotFound) { try await world.authorize(remote, sessionId: "ses_unknown") }
        let first = try await world.authorize(remote)
        let second = try await world.authorize(remote)
        #expect(first.sessionId != second.sessionId)
        _ = try await world.send(remote, session: first.sessionId, value: "400")
        let grants: [Grant] = [
            .nativeTransfer(to: AccessWorld.receiver, limit: "500"),
            .nativeTransfer(to: AccessWorld.otherReceiver, limit: "7"),
        ]
        let again = try await world.authorize(remote, grants: grants, seconds: 900, sessionId: first.sessionId)
        #expect(again.sessionId == first.sessionId)
        let session = try await remote.call(
            .getSession, GetSessionRequest(sessionId: first.sessionId), as: GetSessionResponse.self
        ).session
        #expect(session.grants == grants && session.expiresAt == again.expiry)
        // Spending under the same allowance still counts against the new limit.
        let usage = try await world.usage(remote, session: first.sessionId)
        #expect(usage.map(\.used) == ["400", "0"] && usage.map(\.remaining) == ["100", "7"])
        #expect(try await world.listAll(type: .remote).map(\.sessionId) == [first.sessionId, second.sessionId])
        await expectRefusal(.keyNotFound, "another credential's session") {
            try await world.authorize(other, sessionId: first.sessionId)
        }
        let eth2 = try await world.owner.call(
            .createWallet, CreateWalletRequest(networkFamily: .evm), as: WalletResponse.self)
        await expectRefusal(.keyNotFound, "another wallet's session") {
            try await world.authorize(remote, sessionId: first.sessionId, walletId: eth2.wallet.id)
        }
    }

    @Test(arguments: AccessTransport.allCases)
    func aRemoteCredentialSeesOnlyItsOwnSessions(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let alice = try await world.remote(name: "Alice")
        let bob = try await world.remote(name: "Bob")
        let a1 = try await world.authorize(alice)
        let b1 = try await world.authorize(bob)
        let a2 = try await world.authorize(alice)
        let listed = try await alice.call(.listSessions, ListSessionsRequest(), as: ListSessionsResponse.self)
        #expect(listed.sessions.map(\.sessionId) == [a1.sessionId, a2.sessionId])
        let paged = try await alice.call(
            .listSessions, ListSessionsRequest(page: Page(limit: 1)), as: ListSessionsResponse.self)
        #expect(paged.sessions.map(\.sessionId) == [a1.sessionId] && paged.page?.hasMore == true)
        let ownerView = try await world.owner.call(.listSessions, ListSessionsRequest(), as: ListSessionsResponse.self)
        #expect(ownerView.sessions.count == 3)
        await expectRefusal(.keyNotFound) {
            _ = try await alice.call(
                .getSession, GetSessionRequest(sessionId: b1.sessionId), as: GetSessionResponse.self)
        }
        await expectRefusal(.keyNotFound) { _ = try await world.usage(alice, session: b1.sessionId) }
        await expectRefusal(.keyNotFound) { _ = try await world.send(alice, session: b1.sessionId, value: "1") }
        let bobs = try await world.send(bob, session: b1.sessionId, value: "1")
        await expectRefusal(.transactionNotFound) {
            _ = try await alice.call(
                .execute, ExecuteRequest(transactionId: bobs.transactionId), as: TransactionStatusResponse.self)
        }
        await expectRefusal(.transactionNotFound) {
            _ = try await alice.call(
                .transactionStatus, TransactionStatusRequest(transactionId: bobs.transactionId),
                as: TransactionStatusResponse.self)
        }
        let (stranger, _) = try await world.core.signIn(email: "stranger@example.com")
        await expectRefusal(.keyNotFound) {
            _ = try await stranger.call(
                .getSession, GetSessionRequest(sessionId: a1.sessionId), as: GetSessionResponse.self)
        }
        #expect(
            try await stranger.call(.listSessions, ListSessionsRequest(), as: ListSessionsResponse.self).sessions
                .isEmpty)
    }
}
