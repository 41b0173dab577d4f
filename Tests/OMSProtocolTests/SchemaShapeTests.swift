import Foundation
import OMSProtocol
import Testing

/// Requests and replies in the shapes of the official schema (waas v1-26.8.20), written here from the
/// schema's field list, decode into our wire types, and ours encode to the schema's shapes.
@Suite struct SchemaShapeTests {
    static func json(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(WaasClient.encodeBody(value))) as? [String: Any])
    }

    @Test func grantsTravelWrappedInEntries() throws {
        let request = AuthorizeRemoteAccessRequest(
            credentialId: "0xabc", walletId: "wal_1",
            grants: [.nativeTransfer(to: "0x1111111111111111111111111111111111111111", limit: "5")],
            expiry: "2099-01-01T00:00:00Z", chainId: "80002")
        let body = try Self.json(request)
        let entries = try #require((body["grants"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 1 && entries[0]["kind"] as? String == "nativeTransfer")
        // The schema's form decodes; a bare array (not the schema's form) is refused.
        let wrapped =
            #"{"credentialId":"c","walletId":"w","grants":{"entries":[{"kind":"erc20Transfer","erc20Transfer":{"token":"0x2222222222222222222222222222222222222222","limit":"1"}}]},"expiry":"e","chainId":"1"}"#
        let bare =
            #"{"credentialId":"c","walletId":"w","grants":[{"kind":"nativeTransfer","nativeTransfer":{"to":"0x1111111111111111111111111111111111111111","limit":"1"}}],"expiry":"e","chainId":"1"}"#
        let a = try JSONDecoder().decode(AuthorizeRemoteAccessRequest.self, from: Data(wrapped.utf8))
        #expect(a.grants.first?.kind == .erc20Transfer)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(AuthorizeRemoteAccessRequest.self, from: Data(bare.utf8))
        }

        let info = CredentialInfo(
            credentialId: "c", sessionId: "s", type: .remote, grants: request.grants, expiresAt: "e", isCaller: false)
        let infoBody = try Self.json(info)
        #expect(((infoBody["grants"] as? [String: Any])?["entries"] as? [Any])?.count == 1)
        #expect(try JSONDecoder().decode(CredentialInfo.self, from: Data(WaasClient.encodeBody(info))) == info)
        // A direct credential has no grants: the field is left out, not `null`.
        let direct = try Self.json(CredentialInfo(credentialId: "c", type: .direct, expiresAt: "e", isCaller: true))
        #expect(direct["grants"] == nil)

        let session = RemoteSession(
            sessionId: "s", walletId: "w", signerAddress: "0x", grants: request.grants, chainId: "1", expiresAt: "e")
        #expect(((try Self.json(session)["grants"] as? [String: Any])?["entries"] as? [Any])?.count == 1)
    }

    @Test func optionalFieldsOfTheSchemaMayBeAbsent() throws {
        let commit = try JSONDecoder().decode(
            CommitVerifierRequest.self,
            from: Data(#"{"identityType":"email","authMode":"otp","metadata":{"email":"a@b.example"}}"#.utf8))
        #expect(commit.handle == nil && commit.metadata["email"] == "a@b.example")
        let byType = try JSONDecoder().decode(CreateWalletRequest.self, from: Data(#"{"type":"solana"}"#.utf8))
        #expect(byType.resolvedNetworkFamily == .solana)
        let neither = try JSONDecoder().decode(CreateWalletRequest.self, from: Data("{}".utf8))
        #expect(neither.resolvedNetworkFamily == .evm)
        let both = try JSONDecoder().decode(
            CreateWalletRequest.self, from: Data(#"{"networkFamily":"solana","implementation":"eoa"}"#.utf8))
        #expect(both.resolvedNetworkFamily == .solana && both.implementation == "eoa")
    }

    @Test func transactionsUseTxnIdAndStillReadTheOldName() throws {
        #expect(try Self.json(ExecuteRequest(transactionId: "txn_1"))["txnId"] as? String == "txn_1")
        #expect(try Self.json(ExecuteRequest(transactionId: "txn_1"))["transactionId"] == nil)
        let old = try JSONDecoder().decode(ExecuteRequest.self, from: Data(#"{"transactionId":"txn_2"}"#.utf8))
        #expect(old.txnId == "txn_2")
        let status = try JSONDecoder().decode(
            TransactionStatusResponse.self, from: Data(#"{"status":"executed","txnHash":"0xab"}"#.utf8))
        #expect(status.txHash == "0xab" && status.status == "executed")
        let prepared = try JSONDecoder().decode(
            PrepareResponse.self,
            from: Data(
                #"{"txnId":"t","status":"quoted","feeOptions":[{"token":{"network":"1","name":"Ether","symbol":"ETH","type":"native"},"value":"1","displayValue":"0.000000000000000001"}],"sponsored":false,"expiresAt":"2099-01-01T00:00:00Z"}"#
                    .utf8))
        #expect(prepared.transactionId == "t" && prepared.feeOptions.first?.token.decimals == nil)
        let call = try JSONDecoder().decode(
            PrepareEthereumContractCallRequest.self,
            from: Data(
                #"{"network":"1","walletId":"w","contract":"0x","method":"transfer","args":[{"type":"uint256","value":5}],"mode":"relayer"}"#
                    .utf8))
        #expect(call.mode == .relayer && call.args?.first?.value == .int(5))
    }
}
