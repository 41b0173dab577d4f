import Foundation
import OMSProtocol
import Synchronization
import Testing
import WalletCrypto

@testable import OMSCore

/// Spending within remote sessions: limits hold exactly, under races and near 2^256 - 1.
@Suite struct AccessSpendingTests {
    @Test(arguments: AccessTransport.allCases)
    func nativeAndTokenTransfersSpendTheirAllowances(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        let grants: [Grant] = [
            .nativeTransfer(to: AccessWorld.receiver, limit: "1000"),
            .erc20Transfer(token: AccessWorld.token, limit: "50"),
            .erc20Transfer(token: AccessWorld.token, to: AccessWorld.otherReceiver, limit: "30", cumulative: false),
        ]
        let session = try await world.authorize(remote, grants: grants).sessionId
        let fresh = try await world.usage(world.owner, session: session)
        #expect(fresh.map(\.grant) == grants)
        #expect(fresh.map(\.used) == ["0", "0", "0"] && fresh.map(\.remaining) == ["1000", "50", "30"])

        let executed = try await world.send(remote, session: session, value: "600")
        #expect(executed.status == "executed" && executed.txHash?.count == 66)
        _ = try await world.send(remote, session: session, value: "400")
        await expectRefusal(.usageLimitExceeded, "limit reached") {
            _ = try await world.send(remote, session: session, value: "1")
        }
        await expectRefusal(.usageLimitExceeded, "receiver not allowed for native") {
            _ = try await world.send(remote, session: session, value: "1", to: AccessWorld.otherReceiver)
        }

        func sendToken(_ amount: String, to: String) async throws -> TransactionStatusResponse {
            let prepared = try await remote.call(
                .prepareEthereumTransaction,
                PrepareEthereumTransactionRequest.erc20Transfer(
                    walletId: world.wallet.id, network: AccessWorld.amoy, sessionId: session, token: AccessWorld.token,
                    to: to, amount: amount), as: PrepareEthereumTransactionResponse.self)
            #expect(prepared.from == world.wallet.address && prepared.amount == amount && prepared.value == nil)
            return try await remote.call(
                .execute, ExecuteRequest(transactionId: prepared.transactionId), as: TransactionStatusResponse.self)
        }
        // The shared allowance covers any receiver without its own grant.
        _ = try await sendToken("20", to: AccessWorld.receiver)
        _ = try await sendToken("30", to: "0x4444444444444444444444444444444444444444")
        await expectRefusal(.usageLimitExceeded, "shared allowance spent") {
            _ = try await sendToken("1", to: AccessWorld.receiver)
        }
        // The per-receiver, per-transfer grant caps each transfer, not their sum.
        _ = try await sendToken("30", to: AccessWorld.otherReceiver)
        _ = try await sendToken("30", to: AccessWorld.otherReceiver)
        await expectRefusal(.usageLimitExceeded, "over the per-transfer cap") {
            _ = try await sendToken("31", to: AccessWorld.otherReceiver)
        }
        let usage = try await world.usage(remote, session: session)
        #expect(usage.map(\.used) == ["1000", "50", "60"] && usage.map(\.remaining) == ["0", "0", "30"])
        // Another network has spent nothing.
        let mainnet = try await world.owner.call(
            .getSessionUsage, GetSessionUsageRequest(sessionId: session, network: "1"), as: GetSessionUsageResponse.self
        )
        #expect(mainnet.entries.map(\.used) == ["0", "0", "0"])
        await expectRefusal(.invalidRequest) {
            _ = try await world.owner.call(
                .getSessionUsage, GetSessionUsageRequest(sessionId: session, network: "polygon"),
                as: GetSessionUsageResponse.self)
        }
        // Executing again answers the recorded result and spends nothing more.
        let again = try await remote.call(
            .execute, ExecuteRequest(transactionId: executed.transactionId), as: TransactionStatusResponse.self)
        #expect(again == executed)
        #expect(try await world.usage(remote, session: session).map(\.used) == ["1000", "50", "60"])
    }

    @Test(arguments: AccessTransport.allCases)
    func aRefusedTransferRecordsNothing(_ transport: AccessTransport) async throws {
        let clock = ManualClock()
        let world = try await AccessWorld.make(transport, clock: clock)
        defer { world.remove() }
        let remote = try await world.remote()
        let session = try await world.authorize(
            remote, grants: [.nativeTransfer(to: AccessWorld.receiver, limit: "10")])
        let prepared = try await remote.call(
            .prepareEthereumTransaction,
            PrepareEthereumTransactionRequest.nativeTransfer(
                walletId: world.wallet.id, network: AccessWorld.amoy, sessionId: session.sessionId,
                to: AccessWorld.receiver, value: "8"), as: PrepareEthereumTransactionResponse.self)
        _ = try await world.send(remote, session: session.sessionId, value: "5")
        let before = try await world.dump()
        await expectRefusal(.usageLimitExceeded) {
            _ = try await remote.call(
                .execute, ExecuteRequest(transactionId: prepared.transactionId), as: TransactionStatusResponse.self)
        }
        await expectRefusal(.usageLimitExceeded) {
            _ = try await world.send(remote, session: session.sessionId, value: "6")
        }
        #expect(try await world.dump() == before)
        // A spent session that expired refuses too, and an expired prepared transfer is void.
        clock.advance(by: 3601)
        await expectRefusal(.keyExpired) { _ = try await world.send(remote, session: session.sessionId, value: "1") }
        await expectRefusal(.transactionExpired) {
            _ = try await remote.call(
                .execute, ExecuteRequest(transactionId: prepared.transactionId), as: TransactionStatusResponse.self)
        }
        #expect(try await world.dump() == before)
    }

    @Test(arguments: AccessTransport.allCases)
    func racingTransfersNeverOverspend(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        // A second service on the same database: transfers race across connections, not only on one queue.
        let other = try WaasService.open(home: world.core.home)
        let key = Secp256k1.PrivateKey.generate()
        let nonces = NonceSource()
        let clients = [world.core.transport, InProcessTransport(handler: other)].map {
            WaasClient(
                transport: $0, publishableKey: world.core.publishableKey, signer: EthereumRequestSigner(key: key),
                nonces: nonces)
        }
        _ = try await clients[0].call(
            .registerCredential,
            RegisterCredentialRequest(lifetime: 86_400, metadata: CredentialMetadata(appName: "R")),
            as: RegisterCredentialResponse.self)
        let retries = RetryCounter()
        for round in 0..<20 {
            let session = try await world.authorize(
                clients[0], grants: [.nativeTransfer(to: AccessWorld.receiver, limit: "1000")])
            let outcomes = try await withThrowingTaskGroup(of: String?.self) { group in
                for i in 0..<16 {
                    group.addTask {
                        let value = "100"
                        // A stale nonce (requests of one credential overtaking each other) is retried, as a client
                        // would; it changed nothing.
                        for _ in 0..<1000 {
                            do {
                                _ = try await world.send(clients[i % 2], session: session.sessionId, value: value)
                                return value
                            } catch let error as WaasError where error.code == .preconditionFailed {
                                retries.count.add(1, ordering: .relaxed)
                                continue
                            } catch let error as WaasError where error.code == .usageLimitExceeded {
                                return nil
                            }
                        }
                        throw WaasError(.preconditionFailed, "transfer \(i) never got a fresh nonce through")
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            let succeeded = outcomes.compactMap { $0 }
            #expect(succeeded.count == 10, "round \(round)")
            let total = succeeded.compactMap(TokenAmount.init(canonical:)).reduce(TokenAmount.zero) { $0.adding($1)! }
            let usage = try await world.usage(world.owner, session: session.sessionId)
            #expect(usage.map(\.used) == [total.decimalString] && usage.map(\.remaining) == ["0"], "round \(round)")
            let executed = try await world.core.service.store.read { db in
                try db.scalarInt(
                    "SELECT count(*) FROM transactions WHERE session_id = ? AND status = 'executed'",
                    [.text(session.sessionId)])
            }
            #expect(executed == 10, "round \(round)")
        }
        print(
            "AccessSpendingTests: 20 rounds of 16 racing transfers, \(retries.count.load(ordering: .relaxed)) stale-nonce retries"
        )
        // Every executed transfer got its own EVM nonce.
        let nonceCount = try await world.core.service.store.read { db in
            try db.scalarInt("SELECT count(DISTINCT tx_nonce) FROM transactions WHERE status = 'executed'")
        }
        #expect(nonceCount == 200)
    }

    @Test(arguments: AccessTransport.allCases)
    func amountsNear2To256AreExactAndNeverWrap(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        let max = TokenAmount.max
        let almost = max.subtracting(1)!
        let session = try await world.authorize(
            remote,
            grants: [
                .nativeTransfer(to: AccessWorld.receiver, limit: max.decimalString),
                .erc20Transfer(token: AccessWorld.token, limit: max.decimalString, cumulative: false),
            ]
        ).sessionId
        _ = try await world.send(remote, session: session, value: almost.decimalString)
        var usage = try await world.usage(remote, session: session)
        #expect(usage[0].used == almost.decimalString && usage[0].remaining == "1")
        await expectRefusal(.usageLimitExceeded) { _ = try await world.send(remote, session: session, value: "2") }
        _ = try await world.send(remote, session: session, value: "1")
        usage = try await world.usage(remote, session: session)
        #expect(usage[0].used == max.decimalString && usage[0].remaining == "0")
        await expectRefusal(.usageLimitExceeded) { _ = try await world.send(remote, session: session, value: "1") }
        await expectRefusal(.invalidRequest, "2^256") {
            _ = try await world.send(remote, session: session, value: String(max.decimalString.dropLast()) + "6")
        }
        // A per-transfer grant: each transfer may take the limit, but the running total may not wrap.
        func sendToken(_ amount: TokenAmount) async throws {
            let prepared = try await remote.call(
                .prepareEthereumTransaction,
                PrepareEthereumTransactionRequest.erc20Transfer(
                    walletId: world.wallet.id, network: AccessWorld.amoy, sessionId: session, token: AccessWorld.token,
                    to: AccessWorld.receiver, amount: amount.decimalString), as: PrepareEthereumTransactionResponse.self
            )
            _ = try await remote.call(
                .execute, ExecuteRequest(transactionId: prepared.transactionId), as: TransactionStatusResponse.self)
        }
        try await sendToken(max)
        let before = try await world.dump()
        await expectRefusal(.usageLimitExceeded, "sum past 2^256 - 1") { try await sendToken(1) }
        #expect(try await world.dump() == before)
        usage = try await world.usage(remote, session: session)
        #expect(usage[1].used == max.decimalString && usage[1].remaining == max.decimalString)
    }

    @Test(arguments: AccessTransport.allCases)
    func anExecutedTransferIsASignedEIP1559TransactionFromTheWallet(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        let session = try await world.authorize(remote).sessionId
        for (nonce, value) in [(UInt64(0), "123"), (1, "456")] {
            let result = try await world.send(remote, session: session, value: value)
            let raw = try Base16.decode(try #require(result.rawTransaction), requirePrefix: true)
            #expect(Base16.encodePrefixed(Keccak256.hash(raw)) == result.txHash)
            #expect(raw.first == 0x02)
            let items = try #require(RLPReader.list(Array(raw.dropFirst())))
            #expect(items.count == 12)
            let unsigned = EIP1559Transaction.nativeTransfer(
                chainId: 80_002, nonce: nonce, to: try EthereumAddress(AccessWorld.receiver),
                value: TokenAmount(canonical: value)!)
            let pad = { (bytes: [UInt8]) in [UInt8](repeating: 0, count: 32 - bytes.count) + bytes }
            let signature = try Secp256k1.RecoverableSignature(
                compact: pad(items[10]) + pad(items[11]), recoveryID: items[9].first ?? 0)
            let signer = try Secp256k1.PublicKey(recoveringFrom: signature, digest: unsigned.signingHash)
            #expect(signer.ethereumAddress.checksummed == world.wallet.address)
        }
    }

    @Test func rlpEncodesTheYellowPaperExamples() {
        #expect(RLP.encode(.bytes(Array("dog".utf8))) == [0x83, 0x64, 0x6f, 0x67])
        #expect(
            RLP.encode(.list([.bytes(Array("cat".utf8)), .bytes(Array("dog".utf8))]))
                == [0xc8, 0x83, 0x63, 0x61, 0x74, 0x83, 0x64, 0x6f, 0x67])
        #expect(RLP.encode(.bytes([])) == [0x80])
        #expect(RLP.encode(.list([])) == [0xc0])
        #expect(RLP.encode(.integer(UInt64(0))) == [0x80])
        #expect(RLP.encode(.integer(UInt64(15))) == [0x0f])
        #expect(RLP.encode(.integer(UInt64(1024))) == [0x82, 0x04, 0x00])
        let lorem = Array("Lorem ipsum dolor sit amet, consectetur adipisicing elit".utf8)
        #expect(RLP.encode(.bytes(lorem)) == [0xb8, 0x38] + lorem)
        #expect(
            RLP.encode(.list([.list([]), .list([.list([])]), .list([.list([]), .list([.list([])])])]))
                == [0xc7, 0xc0, 0xc1, 0xc0, 0xc3, 0xc0, 0xc1, 0xc0])
    }
}

/// Counts retried requests across the racing tasks.
final class RetryCounter: Sendable {
    let count = Atomic<Int>(0)
}

/// Reads the top-level list of byte strings of an RLP item (enough to take a signed transaction apart).
enum RLPReader {
    static func list(_ bytes: [UInt8]) -> [[UInt8]]? {
        guard let (payload, _) = item(bytes[...], isList: true) else { return nil }
        var rest = payload
        var items: [[UInt8]] = []
        while !rest.isEmpty {
            guard let (value, next) = item(rest, isList: false) else { return nil }
            items.append(Array(value))
            rest = next
        }
        return items
    }

    /// The payload of the first item of `bytes` and what follows it; a nested list is returned whole.
    private static func item(_ bytes: ArraySlice<UInt8>, isList: Bool) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        guard let first = bytes.first else { return nil }
        let start = bytes.startIndex
        func long(_ lengthOfLength: Int) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
            let lengthBytes = bytes.dropFirst().prefix(lengthOfLength)
            let length = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
            let body = bytes.dropFirst(1 + lengthOfLength)
            guard body.count >= length else { return nil }
            return (body.prefix(length), body.dropFirst(length))
        }
        switch first {
        case 0..<0x80 where !isList: return (bytes[start...start], bytes.dropFirst())
        case 0x80...0xb7 where !isList:
            let length = Int(first - 0x80)
            return (bytes.dropFirst().prefix(length), bytes.dropFirst(1 + length))
        case 0xb8...0xbf where !isList: return long(Int(first - 0xb7))
        case 0xc0...0xf7:
            let length = Int(first - 0xc0)
            return isList
                ? (bytes.dropFirst().prefix(length), bytes.dropFirst(1 + length))
                : (bytes.prefix(1 + length), bytes.dropFirst(1 + length))
        case 0xf8...0xff:
            guard let (body, rest) = long(Int(first - 0xf7)) else { return nil }
            return isList ? (body, rest) : (bytes[start..<body.endIndex], rest)
        default: return nil
        }
    }
}
