import Foundation
import OMSProtocol
import TestSupport
import Testing
import WalletCrypto

@testable import OMSCore

/// SignMessage, SignTypedData and the public checks over HTTP against a served core, in the generated
/// client's shapes; eth-account and PyNaCl (scripts/python-oracles.sh) judge the signatures.
@Suite struct SigningWireTests {
    /// eth-account recovers the signer of a personal message and of typed data (stdin: JSON).
    static let ethOracle = """
        import json, sys
        from eth_account import Account
        from eth_account.messages import encode_defunct, encode_typed_data
        d = json.load(sys.stdin)
        if "typedData" in d:
            signable = encode_typed_data(full_message=d["typedData"])
        else:
            signable = encode_defunct(text=d["message"])
        print(Account.recover_message(signable, signature=d["signature"]))
        """

    /// PyNaCl verifies an Ed25519 signature; solders reads the base58 address and signature.
    static let naclOracle = """
        import json, sys
        from nacl.signing import VerifyKey
        from nacl.exceptions import BadSignatureError
        from solders.pubkey import Pubkey
        from solders.signature import Signature
        d = json.load(sys.stdin)
        key = VerifyKey(bytes(Pubkey.from_string(d["address"])))
        try:
            key.verify(d["message"].encode(), bytes(Signature.from_string(d["signature"])))
            print("valid")
        except BadSignatureError:
            print("invalid")
        """

    static func oracle(_ script: String, _ input: [String: Any]) throws -> String {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)
        return try PythonOracle.run(script, stdin: json).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The EIP-712 example's typed data, on `chainId`.
    static func mail(chainId: Int, contents: String = "Hello, Bob!") throws -> String {
        let data = try Fixtures.data("vectors/eip712_mail_example.json")
        var root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var typed = try #require(root["typedData"] as? [String: Any])
        var domain = try #require(typed["domain"] as? [String: Any])
        domain["chainId"] = chainId
        typed["domain"] = domain
        var message = try #require(typed["message"] as? [String: Any])
        message["contents"] = contents
        typed["message"] = message
        root = typed
        return String(decoding: try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func ethereumMessagesRecoverToTheWalletAndTamperingIsInvalid() async throws {
        let (world, wire) = try await SchemaWireTests.world()
        defer { world.remove() }
        let wallet = world.wallet
        let message = "hello \u{1F511} from walletops"
        let signed = try await wire.ok(
            .signMessage, #"{"network":"80002","walletId":"\#(wallet.id)","message":"\#(message)"}"#)
        let signature = try #require(signed["signature"] as? String)
        #expect(signature.hasPrefix("0x") && signature.count == 2 + 130)
        let recovered = try Self.oracle(Self.ethOracle, ["message": message, "signature": signature])
        #expect(recovered.lowercased() == wallet.address.lowercased())

        let anyone = SDKWire(client: world.core.publicClient, transport: world.core.transport)
        func check(_ body: String) async throws -> Bool? {
            try await anyone.ok(.isValidMessageSignature, body)["isValid"] as? Bool
        }
        #expect(
            try await check(#"{"walletId":"\#(wallet.id)","message":"\#(message)","signature":"\#(signature)"}"#)
                == true)
        // As the SDK sends it (wire-samples/11): network, family and address.
        #expect(
            try await check(
                #"{"network":"80002","networkFamily":"evm","walletAddress":"\#(wallet.address)","message":"\#(message)","signature":"\#(signature)"}"#
            ) == true)
        #expect(
            try await check(
                #"{"network":"137","walletAddress":"\#(wallet.address)","message":"\#(message)","signature":"\#(signature)"}"#
            ) == true)
        // A changed message, another address, a garbage signature: false, never an error.
        #expect(
            try await check(#"{"walletId":"\#(wallet.id)","message":"hello","signature":"\#(signature)"}"#) == false)
        #expect(
            try await check(
                #"{"walletAddress":"\#(SchemaWireTests.receiver)","networkFamily":"evm","message":"\#(message)","signature":"\#(signature)"}"#
            ) == false)
        let garbage = "0x" + String(repeating: "11", count: 65)
        #expect(
            try await check(#"{"walletId":"\#(wallet.id)","message":"\#(message)","signature":"\#(garbage)"}"#) == false
        )
        // Naming no wallet is a bad request; an unknown wallet id is WalletNotFound.
        #expect(try await anyone.send(.isValidMessageSignature, #"{"message":"m","signature":"0x"}"#).errorCode == 7200)
        #expect(
            try await anyone.send(.isValidMessageSignature, #"{"walletId":"wal_x","message":"m","signature":"0x"}"#)
                .errorCode == 7300)
        // Only the owner signs: another account's credential does not find the wallet.
        let (stranger, _) = try await world.core.signIn(email: "stranger@example.com")
        let strangers = SDKWire(client: stranger, transport: world.core.transport)
        let refused = try await strangers.send(
            .signMessage, #"{"network":"80002","walletId":"\#(wallet.id)","message":"m"}"#)
        #expect(refused.errorCode == 7300 && refused.message?.isEmpty == false)
    }

    @Test func solanaMessagesAreEd25519OverTheBytes() async throws {
        let (world, wire) = try await SchemaWireTests.world()
        defer { world.remove() }
        let wallet = try #require(
            try await wire.ok(.createWallet, #"{"networkFamily":"solana"}"#)["wallet"] as? [String: Any])
        let id = try #require(wallet["id"] as? String)
        let address = try #require(wallet["address"] as? String)
        let signed = try await wire.ok(.signMessage, #"{"network":"solana","walletId":"\#(id)","message":"gm"}"#)
        let signature = try #require(signed["signature"] as? String)
        #expect(
            try Self.oracle(Self.naclOracle, ["address": address, "message": "gm", "signature": signature]) == "valid")
        #expect(
            try Self.oracle(Self.naclOracle, ["address": address, "message": "gn", "signature": signature]) == "invalid"
        )
        let anyone = SDKWire(client: world.core.publicClient, transport: world.core.transport)
        let valid = try await anyone.ok(
            .isValidMessageSignature,
            #"{"networkFamily":"solana","walletAddress":"\#(address)","message":"gm","signature":"\#(signature)"}"#)
        #expect(valid["isValid"] as? Bool == true)
        let tampered = try await anyone.ok(
            .isValidMessageSignature, #"{"walletId":"\#(id)","message":"gn","signature":"\#(signature)"}"#)
        #expect(tampered["isValid"] as? Bool == false)
        // Typed data is Ethereum's only.
        let typed = try await wire.send(
            .signTypedData, #"{"network":"80002","walletId":"\#(id)","typedData":\#(try Self.mail(chainId: 80002))}"#)
        #expect(typed.errorCode == 7303)
    }

    @Test func typedDataSignaturesMatchEthAccountAndTamperingIsInvalid() async throws {
        let (world, wire) = try await SchemaWireTests.world()
        defer { world.remove() }
        let wallet = world.wallet
        let typedData = try Self.mail(chainId: 80002)
        let signed = try await wire.ok(
            .signTypedData, #"{"network":"80002","walletId":"\#(wallet.id)","typedData":\#(typedData)}"#)
        let signature = try #require(signed["signature"] as? String)
        let typedObject = try JSONSerialization.jsonObject(with: Data(typedData.utf8))
        let recovered = try Self.oracle(Self.ethOracle, ["typedData": typedObject, "signature": signature])
        #expect(recovered.lowercased() == wallet.address.lowercased())

        let anyone = SDKWire(client: world.core.publicClient, transport: world.core.transport)
        func check(_ body: String) async throws -> Bool? {
            try await anyone.ok(.isValidTypedDataSignature, body)["isValid"] as? Bool
        }
        #expect(
            try await check(#"{"walletId":"\#(wallet.id)","typedData":\#(typedData),"signature":"\#(signature)"}"#)
                == true)
        #expect(
            try await check(
                #"{"network":"80002","walletAddress":"\#(wallet.address)","typedData":\#(typedData),"signature":"\#(signature)"}"#
            ) == true)
        let tampered = try Self.mail(chainId: 80002, contents: "Hello, Bob?")
        #expect(
            try await check(#"{"walletId":"\#(wallet.id)","typedData":\#(tampered),"signature":"\#(signature)"}"#)
                == false)
        // The domain's chain must be the network's, when signing and when checking on a network.
        let otherChain = try Self.mail(chainId: 1)
        let wrongChain = try await wire.send(
            .signTypedData, #"{"network":"80002","walletId":"\#(wallet.id)","typedData":\#(otherChain)}"#)
        #expect(wrongChain.errorCode == 7200)
        let malformed = try await wire.send(
            .signTypedData, #"{"network":"80002","walletId":"\#(wallet.id)","typedData":{"types":{}}}"#)
        #expect(malformed.errorCode == 7200 && malformed.message?.contains("typedData") == true)
    }
}
