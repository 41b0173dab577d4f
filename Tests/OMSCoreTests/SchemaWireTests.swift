import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// The official schema's methods over real HTTP against a served core: each request written as the
/// generated client builds it, each reply read by the client's field names (SDKWire).
@Suite struct SchemaWireTests {
    static let receiver = "0x1111111111111111111111111111111111111111"

    /// A served core with a signed-in owner and an Ethereum wallet.
    static func world() async throws -> (AccessWorld, SDKWire) {
        let world = try await AccessWorld.make(.http)
        return (world, SDKWire(client: world.owner, transport: world.core.transport))
    }

    @Test func emailCodeSignInWithTheAddressInMetadataAndTheSchemasAuthErrors() async throws {
        let core = try AccessTransport.http.makeCore()
        defer { core.removeServed() }
        let wire = SDKWire(client: try core.newClient(), transport: core.transport)
        // `handle` is optional in the schema; the address comes in metadata.email.
        let commit = try await wire.ok(
            .commitVerifier, #"{"identityType":"email","authMode":"otp","metadata":{"email":"Op@Example.com"}}"#)
        let verifier = try #require(commit["verifier"] as? String)
        let challenge = try #require(commit["challenge"] as? String)
        let outbox = try String(
            contentsOf: core.home.outboxURL.appendingPathComponent("op@example.com.txt"), encoding: .utf8)
        let code = try #require(outbox.split(separator: " ").first?.split(separator: "=").last.map(String.init))
        func complete(_ answer: String) async throws -> SDKWire.Reply {
            try await wire.send(
                .completeAuth,
                #"{"identityType":"email","authMode":"otp","verifier":"\#(verifier)","answer":"\#(answer)","lifetime":604800}"#
            )
        }
        // A wrong code is AnswerIncorrect (7003), with the text in `message`.
        let wrong = try await complete(WaasService.otpAnswer(challenge: challenge, code: "999999x"))
        #expect(wrong.status == 400 && wrong.errorCode == 7003)
        #expect(wrong["error"] as? String == "AnswerIncorrect")
        #expect(wrong.message == "the code is not correct" && wrong["msg"] as? String == wrong.message)
        let signedIn = try await complete(WaasService.otpAnswer(challenge: challenge, code: code))
        #expect(signedIn.status == 200, "\(signedIn.json)")
        let credential = try #require(signedIn["credential"] as? [String: Any])
        #expect(credential["type"] as? String == "direct" && credential["isCaller"] as? Bool == true)
        #expect((signedIn["identity"] as? [String: Any])?["sub"] as? String == "op@example.com")
        // The commitment is spent: CommitmentConsumed (7008).
        #expect(try await complete(WaasService.otpAnswer(challenge: challenge, code: code)).errorCode == 7008)
    }

    @Test func tooManyWrongCodesAnswerTooManyAttempts() async throws {
        let core = try AccessTransport.http.makeCore()
        defer { core.removeServed() }
        let wire = SDKWire(client: try core.newClient(), transport: core.transport)
        let commit = try await wire.ok(
            .commitVerifier, #"{"identityType":"email","authMode":"otp","metadata":{},"handle":"a@example.com"}"#)
        let verifier = try #require(commit["verifier"] as? String)
        var codes: [Int?] = []
        for _ in 0..<WaasService.maxOTPAttempts + 1 {
            let reply = try await wire.send(
                .completeAuth,
                #"{"identityType":"email","authMode":"otp","verifier":"\#(verifier)","answer":"wrong"}"#)
            codes.append(reply.errorCode)
        }
        #expect(
            codes == Array(repeating: 7003, count: WaasService.maxOTPAttempts - 1) + [7005, 7008], "\(codes)")
    }

    @Test func createWalletTakesTypeOrNetworkFamilyOrNeither() async throws {
        let (world, wire) = try await Self.world()
        defer { world.remove() }
        let solana = try #require(try await wire.ok(.createWallet, #"{"type":"solana"}"#)["wallet"] as? [String: Any])
        #expect(solana["networkFamily"] as? String == "solana" && solana["type"] as? String == "solana")
        let plain = try #require(try await wire.ok(.createWallet, "{}")["wallet"] as? [String: Any])
        #expect(plain["networkFamily"] as? String == "evm" && plain["keyOrigin"] as? String == "enclave")
        let eoa = try await wire.ok(.createWallet, #"{"networkFamily":"evm","implementation":"eoa","reference":"r1"}"#)
        #expect((eoa["wallet"] as? [String: Any])?["reference"] as? String == "r1")
        let smart = try await wire.send(.createWallet, #"{"networkFamily":"evm","implementation":"smart-wallet"}"#)
        #expect(smart.errorCode == 7303)
        let mismatch = try await wire.send(.createWallet, #"{"type":"solana","networkFamily":"evm"}"#)
        #expect(mismatch.errorCode == 7200)
    }

    @Test func grantsTravelAsEntriesInAuthorizeListAccessAndGetSession() async throws {
        let (world, wire) = try await Self.world()
        defer { world.remove() }
        let remote = try await world.remote()
        let expiry = RFC3339.format(world.now + 3600)
        let authorized = try await wire.ok(
            .authorizeRemoteAccess,
            #"{"credentialId":"\#(remote.signer!.credentialId)","walletId":"\#(world.wallet.id)","grants":{"entries":[{"kind":"nativeTransfer","nativeTransfer":{"to":"\#(Self.receiver)","limit":"1000"}}]},"expiry":"\#(expiry)","chainId":"80002"}"#
        )
        let sessionId = try #require(authorized["sessionId"] as? String)
        #expect(authorized["expiry"] as? String == expiry)
        let listed = try await wire.ok(.listAccess, #"{"walletId":"\#(world.wallet.id)"}"#)
        let credentials = try #require(listed["credentials"] as? [[String: Any]])
        let remoteEntry = try #require(credentials.first { $0["type"] as? String == "remote" })
        let entries = try #require((remoteEntry["grants"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 1 && entries[0]["kind"] as? String == "nativeTransfer")
        #expect(remoteEntry["sessionId"] as? String == sessionId)
        let direct = try #require(credentials.first { $0["type"] as? String == "direct" })
        #expect(direct["grants"] == nil && direct["isCaller"] as? Bool == true)
        let session = try await wire.ok(.getSession, #"{"sessionId":"\#(sessionId)"}"#)
        #expect(
            (((session["session"] as? [String: Any])?["grants"] as? [String: Any])?["entries"] as? [Any])?.count == 1)
        // A bare array is not the schema's form: refused as an invalid request, nothing authorized.
        let bare = try await wire.send(
            .authorizeRemoteAccess,
            #"{"credentialId":"\#(remote.signer!.credentialId)","walletId":"\#(world.wallet.id)","grants":[{"kind":"nativeTransfer","nativeTransfer":{"to":"\#(Self.receiver)","limit":"5"}}],"expiry":"\#(expiry)","chainId":"80002"}"#
        )
        #expect(bare.status == 400 && bare["sessionId"] == nil, "\(bare.json)")
    }
}
