import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// Bad input to every access method answers with the right code and changes nothing in the database.
@Suite struct AccessInputTests {
    /// Sends `body` as the exact request bytes of `method`, signed by `client`.
    static func raw(_ client: WaasClient, _ method: WaasMethod, _ body: String) async throws {
        _ = try await client.callRaw(method, body: Array(body.utf8))
    }

    @Test(arguments: AccessTransport.allCases)
    func malformedBodiesAreInvalidRequestsThatChangeNothing(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        let session = try await world.authorize(remote).sessionId
        let wallet = world.wallet.id
        let credential = remote.signer!.credentialId
        let expiry = RFC3339.format(world.now + 60)
        let grant = #"{"kind":"nativeTransfer","nativeTransfer":{"to":"\#(AccessWorld.receiver)","limit":"5"}}"#
        // (method, caller, body): malformed JSON, missing fields, mistyped fields.
        let cases: [(WaasMethod, WaasClient, String)] = [
            (.listAccess, world.owner, "{"),
            (.listAccess, world.owner, "{}"),
            (.listAccess, world.owner, #"{"walletId":5}"#),
            (.listAccess, world.owner, #"{"walletId":"\#(wallet)","page":{"limit":"10"}}"#),
            (.listAccess, world.owner, #"{"walletId":"\#(wallet)","page":{"limit":1.5}}"#),
            (.revokeAccess, world.owner, "[]"),
            (.revokeAccess, world.owner, #"{"walletId":"\#(wallet)"}"#),
            (.revokeAccess, world.owner, #"{"walletId":"\#(wallet)","targetCredentialId":null}"#),
            (.registerCredential, remote, #"{"lifetime":"60","metadata":{"appName":"A"}}"#),
            (.registerCredential, remote, #"{"lifetime":60}"#),
            (.registerCredential, remote, #"{"lifetime":60,"metadata":{"appName":"A","custom":{"k":1}}}"#),
            (.revokeCredential, remote, "{}"),
            (.authorizeRemoteAccess, world.owner, "null"),
            (
                .authorizeRemoteAccess, world.owner,
                #"{"credentialId":"\#(credential)","walletId":"\#(wallet)","grants":[\#(grant)],"expiry":"\#(expiry)","chainId":80002}"#
            ),
            (
                .authorizeRemoteAccess, world.owner,
                #"{"credentialId":"\#(credential)","walletId":"\#(wallet)","grants":{},"expiry":"\#(expiry)","chainId":"80002"}"#
            ),
            (
                .authorizeRemoteAccess, world.owner,
                #"{"credentialId":"\#(credential)","walletId":"\#(wallet)","grants":[{"kind":"nativeTransfer","nativeTransfer":{"to":"\#(AccessWorld.receiver)","limit":5}}],"expiry":"\#(expiry)","chainId":"80002"}"#
            ),
            (
                .authorizeRemoteAccess, world.owner,
                #"{"credentialId":"not-an-address","walletId":"\#(wallet)","grants":[\#(grant)],"expiry":"\#(expiry)","chainId":"80002"}"#
            ),
            (.getSession, remote, #"{"sessionId":1}"#),
            (.listSessions, remote, #"{"page":{"cursor":"bm9wZQ"}}"#),
            (.getSessionUsage, remote, #"{"sessionId":"\#(session)"}"#),
            (.getSessionUsage, remote, #"{"sessionId":"\#(session)","network":80002}"#),
            (
                .prepareEthereumTransaction, remote,
                #"{"walletId":"\#(wallet)","network":"80002","sessionId":"\#(session)"}"#
            ),
            (
                .prepareEthereumTransaction, remote,
                #"{"walletId":"\#(wallet)","network":"80002","sessionId":"\#(session)","to":"\#(AccessWorld.receiver)","value":5}"#
            ),
            (
                .prepareEthereumTransaction, remote,
                #"{"walletId":"\#(wallet)","network":"80002","sessionId":"\#(session)","to":"\#(AccessWorld.receiver)","value":"05"}"#
            ),
            (
                .prepareEthereumTransaction, remote,
                #"{"walletId":"\#(wallet)","network":"80002","sessionId":"\#(session)","to":"\#(AccessWorld.receiver)","value":"0"}"#
            ),
            (
                .prepareEthereumTransaction, remote,
                #"{"walletId":"\#(wallet)","network":"80002","sessionId":"\#(session)","to":"\#(AccessWorld.receiver)","value":"5","amount":"5"}"#
            ),
            (
                .prepareEthereumTransaction, remote,
                #"{"walletId":"\#(wallet)","network":"80002","sessionId":"\#(session)","to":"0x1234","value":"5"}"#
            ),
            (.execute, remote, #"{"transactionId":["txn"]}"#),
            (.transactionStatus, remote, "{"),
        ]
        let before = try await world.dump()
        var ran = 0
        for (method, client, body) in cases {
            await expectRefusal(.invalidRequest, "\(method.name) \(body)") { try await Self.raw(client, method, body) }
            ran += 1
        }
        await expectRefusal(.invalidRequest, "InspectCredential") {
            try await Self.raw(world.core.publicClient, .inspectCredential, #"{"scope":"x"}"#)
        }
        #expect(try await world.dump() == before)
        print("AccessInputTests: \(ran + 1) malformed bodies refused")
        #expect(ran == cases.count)
    }

    @Test(arguments: AccessTransport.allCases)
    func signaturesNoncesAndCredentialsAreCheckedBeforeAnythingChanges(_ transport: AccessTransport) async throws {
        let clock = ManualClock()
        let world = try await AccessWorld.make(transport, clock: clock)
        defer { world.remove() }
        let remote = try await world.remote(lifetime: 3600)
        let session = try await world.authorize(remote).sessionId
        let authorize = try WaasClient.encodeBody(
            AuthorizeRemoteAccessRequest(
                credentialId: remote.signer!.credentialId, walletId: world.wallet.id,
                grants: [.nativeTransfer(to: AccessWorld.receiver, limit: "1")], expiry: RFC3339.format(world.now + 60),
                chainId: AccessWorld.amoy))
        let prepare = try WaasClient.encodeBody(
            PrepareEthereumTransactionRequest.nativeTransfer(
                walletId: world.wallet.id, network: AccessWorld.amoy, sessionId: session, to: AccessWorld.receiver,
                value: "1"))

        // A replayed request: the second delivery is refused and does not authorize twice.
        let signed = try world.owner.makeRequest(.authorizeRemoteAccess, body: authorize)
        let first = try await world.core.transport.send(signed)
        #expect(first.status == 200)
        var before = try await world.dump()
        await expectRefusal(.preconditionFailed, "replayed owner request") { try await Self.deliver(world, signed) }
        let spend = try remote.makeRequest(.prepareEthereumTransaction, body: prepare)
        #expect(try await world.core.transport.send(spend).status == 200)
        before = try await world.dump()
        await expectRefusal(.preconditionFailed, "replayed remote request") { try await Self.deliver(world, spend) }
        // A remote signer writing its address in another case still has one nonce sequence.
        var recased = spend
        recased.message.setHeader(
            SignatureHeader.name,
            spend.header(SignatureHeader.name)!.replacingOccurrences(
                of: remote.signer!.credentialId, with: remote.signer!.credentialId.lowercased()))
        await expectRefusal(.preconditionFailed, "replay under a lowercase address") {
            try await Self.deliver(world, recased)
        }
        #expect(try await world.dump() == before)

        // A body altered after signing, and a signature by another key.
        for (client, method, body) in [
            (world.owner, WaasMethod.authorizeRemoteAccess, authorize), (remote, .prepareEthereumTransaction, prepare),
        ] {
            var tampered = try client.makeRequest(method, body: body)
            tampered.message.body = Array(
                String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\"1\"", with: "\"9\"").utf8)
            await expectRefusal(.invalidSignature, "\(method.name) tampered") {
                try await Self.deliver(world, tampered)
            }
            var forged = try client.makeRequest(method, body: body)
            let impostor = try world.unregisteredRemote().makeRequest(method, body: body)
            let forgedSig = impostor.header(SignatureHeader.name)!.split(separator: "sig=").last!
            let header = forged.header(SignatureHeader.name)!
            forged.message.setHeader(
                SignatureHeader.name, String(header.split(separator: "sig=").first!) + "sig=" + forgedSig)
            await expectRefusal(.invalidSignature, "\(method.name) forged") { try await Self.deliver(world, forged) }
        }
        #expect(try await world.dump() == before)

        // Unknown credentials: a device key that never signed in, an Ethereum key never registered.
        let stranger = WaasClient(
            transport: world.core.transport, publishableKey: world.core.publishableKey,
            signer: P256RequestSigner(key: try P256.Signing.PrivateKey()))
        await expectRefusal(.unauthorized) { _ = try await world.listAll(stranger) }
        await expectRefusal(.unauthorized) {
            _ = try await world.unregisteredRemote().call(
                .listSessions, ListSessionsRequest(), as: ListSessionsResponse.self)
        }
        await expectRefusal(.unauthorized) {
            try await Self.deliver(
                world, try world.unregisteredRemote().makeRequest(.prepareEthereumTransaction, body: prepare))
        }
        #expect(try await world.dump() == before)

        // Expired credentials: the remote one after its hour, the owner's after its week.
        clock.advance(by: 3600 + 61)
        await expectRefusal(.keyExpired) {
            _ = try await remote.call(.listSessions, ListSessionsRequest(), as: ListSessionsResponse.self)
        }
        await expectRefusal(.keyExpired) {
            try await Self.deliver(world, try remote.makeRequest(.prepareEthereumTransaction, body: prepare))
        }
        clock.advance(by: 604_800)
        await expectRefusal(.keyExpired) { _ = try await world.listAll() }
        await expectRefusal(.keyExpired) {
            try await Self.deliver(world, try world.owner.makeRequest(.authorizeRemoteAccess, body: authorize))
        }
        #expect(try await world.dump() == before)
    }

    @Test(arguments: AccessTransport.allCases)
    func everyMethodRefusesTamperedAndReplayedRequests(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        let session = try await world.authorize(remote).sessionId
        let spare = try await world.authorize(remote).sessionId
        let prepared = try await remote.call(
            .prepareEthereumTransaction,
            PrepareEthereumTransactionRequest.nativeTransfer(
                walletId: world.wallet.id, network: AccessWorld.amoy, sessionId: session, to: AccessWorld.receiver,
                value: "3"), as: PrepareEthereumTransactionResponse.self)
        func body(_ value: some Encodable) throws -> [UInt8] { try WaasClient.encodeBody(value) }
        let credential = remote.signer!.credentialId
        // Valid requests of every access method, in an order where each still succeeds.
        let calls: [(WaasMethod, WaasClient, [UInt8])] = [
            (.listAccess, world.owner, try body(ListAccessRequest(walletId: world.wallet.id))),
            (
                .authorizeRemoteAccess, world.owner,
                try body(
                    AuthorizeRemoteAccessRequest(
                        credentialId: credential, walletId: world.wallet.id,
                        grants: [.nativeTransfer(to: AccessWorld.receiver, limit: "9")],
                        expiry: RFC3339.format(world.now + 600), chainId: AccessWorld.amoy))
            ),
            (.getSession, world.owner, try body(GetSessionRequest(sessionId: session))),
            (.getSession, remote, try body(GetSessionRequest(sessionId: session))),
            (.listSessions, remote, try body(ListSessionsRequest())),
            (.getSessionUsage, remote, try body(GetSessionUsageRequest(sessionId: session, network: AccessWorld.amoy))),
            (
                .prepareEthereumTransaction, remote,
                try body(
                    PrepareEthereumTransactionRequest.nativeTransfer(
                        walletId: world.wallet.id, network: AccessWorld.amoy, sessionId: session,
                        to: AccessWorld.receiver, value: "2"))
            ),
            (.execute, remote, try body(ExecuteRequest(transactionId: prepared.transactionId))),
            (
                .transactionStatus, world.owner,
                try body(TransactionStatusRequest(transactionId: prepared.transactionId))
            ),
            (
                .registerCredential, remote,
                try body(RegisterCredentialRequest(lifetime: 600, metadata: CredentialMetadata(appName: "Renewed")))
            ),
            (
                .revokeAccess, world.owner,
                try body(
                    RevokeAccessRequest(targetCredentialId: credential, walletId: world.wallet.id, sessionId: spare))
            ),
            (.revokeCredential, remote, try body(RevokeCredentialRequest(credentialId: credential))),
        ]
        var checked = 0
        for (method, client, valid) in calls {
            // Another body under this request's signature: InvalidSignature.
            var tampered = try client.makeRequest(method, body: valid)
            tampered.message.body = valid + Array(" ".utf8)
            var before = try await world.dump()
            await expectRefusal(.invalidSignature, "\(method.name) tampered") {
                try await Self.deliver(world, tampered)
            }
            #expect(try await world.dump() == before, "\(method.name) tampered")
            let request = try client.makeRequest(method, body: valid)
            try await Self.deliver(world, request)
            before = try await world.dump()
            await expectRefusal(.preconditionFailed, "\(method.name) replayed") {
                try await Self.deliver(world, request)
            }
            #expect(try await world.dump() == before, "\(method.name) replayed")
            checked += 1
        }
        print("AccessInputTests: \(checked) methods refused tampered and replayed requests")
        #expect(checked == calls.count)
    }

    /// Sends a prepared request and throws its service error.
    static func deliver(_ world: AccessWorld, _ request: WaasHTTPRequest) async throws {
        let response = try await world.core.transport.send(request)
        guard response.status == 200 else {
            throw WaasError(wireBody: response.body, httpStatus: response.status)
                ?? WaasError(.internal, "no error body")
        }
    }
}
