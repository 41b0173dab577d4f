import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// The rest of the official schema's methods over HTTP against a served core, in the generated client's
/// shapes: Status, GetJWKS, ListWallets (pages as the SDK follows them), UseWallet, GetIDToken,
/// RegisterCredential, InspectCredential, RevokeAccess, RevokeCredential.
@Suite struct AccountWireTests {
    @Test func publicMethodsAnswerTheSchemasFields() async throws {
        let (world, _) = try await SchemaWireTests.world()
        defer { world.remove() }
        let anyone = SDKWire(client: world.core.publicClient, transport: world.core.transport)
        let status = try await anyone.ok(.status, "{}")
        #expect(status["ver"] is String && status["env"] is String && (status["pcr0"] as? String)?.count == 96)
        let keys = try #require(try await anyone.ok(.getJWKS, "{}")["keys"] as? [[String: Any]])
        #expect(!keys.isEmpty)
        for key in keys {
            for field in ["alg", "crv", "kid", "kty", "use", "x", "y"] { #expect(key[field] is String, "\(field)") }
        }
    }

    @Test func walletsPageAndUseAndTokensAsTheSDKReadsThem() async throws {
        let (world, wire) = try await SchemaWireTests.world()
        defer { world.remove() }
        for index in 0..<4 {
            _ = try await wire.ok(.createWallet, #"{"networkFamily":"evm","reference":"r\#(index)"}"#)
        }
        // The SDK sends {} first, then page.cursor until the cursor is empty.
        var ids: [String] = []
        var body = #"{"page":{"limit":2}}"#
        for _ in 0..<10 {
            let reply = try await wire.ok(.listWallets, body)
            let wallets = try #require(reply["wallets"] as? [[String: Any]])
            for wallet in wallets {
                #expect(wallet["id"] is String && wallet["address"] is String)
                #expect(wallet["networkFamily"] as? String == "evm" && wallet["keyOrigin"] as? String == "enclave")
            }
            ids += wallets.compactMap { $0["id"] as? String }
            guard let cursor = (reply["page"] as? [String: Any])?["cursor"] as? String, !cursor.isEmpty else { break }
            body = #"{"page":{"limit":2,"cursor":"\#(cursor)"}}"#
        }
        #expect(ids.count == 5 && Set(ids).count == 5)
        let used = try await wire.ok(.useWallet, #"{"walletId":"\#(ids[2])"}"#)
        #expect((used["wallet"] as? [String: Any])?["id"] as? String == ids[2])
        #expect(try await wire.send(.useWallet, #"{"walletId":"wal_nobody"}"#).errorCode == 7300)
        let token = try await wire.ok(
            .getIDToken, #"{"walletId":"\#(ids[2])","ttlSeconds":300,"customClaims":{"role":"ops"}}"#)
        let claims = try JWT.decodeUnverified(try #require(token["idToken"] as? String)).claims
        #expect(claims["sub"]?.stringValue == ids[2] && claims["role"]?.stringValue == "ops")
    }

    @Test func remoteCredentialsRegisterInspectRevokeAndLoseAccess() async throws {
        let (world, wire) = try await SchemaWireTests.world()
        defer { world.remove() }
        let remoteClient = world.unregisteredRemote()
        let remote = SDKWire(client: remoteClient, transport: world.core.transport)
        let registered = try await remote.ok(
            .registerCredential,
            #"{"lifetime":86400,"metadata":{"appUrl":"https://app.example","appName":"Payroll","appLogoUrl":"","custom":{"team":"ops"}}}"#
        )
        let credentialId = try #require(registered["credentialId"] as? String)
        #expect(credentialId == remoteClient.signer!.credentialId)
        let anyone = SDKWire(client: world.core.publicClient, transport: world.core.transport)
        let inspected = try await anyone.ok(
            .inspectCredential, #"{"scope":"\#(world.core.project.id)","credentialId":"\#(credentialId)"}"#)
        let metadata = try #require(inspected["metadata"] as? [String: Any])
        #expect(metadata["appName"] as? String == "Payroll")
        #expect((metadata["custom"] as? [String: Any])?["team"] as? String == "ops")

        let session = try await world.authorize(remoteClient).sessionId
        // A remote grant is revoked with its sessionId; then the list no longer has it.
        let revoked = try await wire.ok(
            .revokeAccess,
            #"{"targetCredentialId":"\#(credentialId)","walletId":"\#(world.wallet.id)","sessionId":"\#(session)"}"#)
        #expect(revoked["ok"] as? Bool == true)
        let listed = try #require(
            try await wire.ok(.listAccess, #"{"walletId":"\#(world.wallet.id)","type":"remote"}"#)["credentials"]
                as? [Any])
        #expect(listed.isEmpty)
        // The remote credential revokes itself; it is then unknown to InspectCredential.
        let selfRevoked = try await remote.ok(.revokeCredential, #"{"credentialId":"\#(credentialId)"}"#)
        #expect(selfRevoked["ok"] as? Bool == true)
        let gone = try await anyone.send(
            .inspectCredential, #"{"scope":"\#(world.core.project.id)","credentialId":"\#(credentialId)"}"#)
        #expect(gone.errorCode == 7202 && gone.message?.isEmpty == false)
    }
}
