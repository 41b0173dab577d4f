import Foundation
import OMSProtocol
import TestSupport
import Testing
import WalletCrypto

@testable import OMSCore

/// PrepareEthereumTransaction, PrepareEthereumContractCall, PrepareSolanaTransfer, Execute and
/// TransactionStatus over HTTP against a served core, in the generated client's shapes; eth-account and
/// solders decode and verify what the ledger signed.
@Suite struct TransactionWireTests {
    static let token = "0x3333333333333333333333333333333333333333"

    /// eth-account: the sender, chain, receiver, value and data of a signed EIP-1559 transaction, and
    /// whether the hash is keccak-256 of its bytes.
    static let evmOracle = """
        import json, sys
        from eth_account import Account
        from eth_account.typed_transactions import TypedTransaction
        from eth_utils import keccak, to_checksum_address
        from hexbytes import HexBytes
        d = json.load(sys.stdin)
        raw = HexBytes(bytes.fromhex(d["raw"][2:]))
        tx = TypedTransaction.from_bytes(raw).as_dict()
        print(json.dumps({
            "from": Account.recover_transaction(bytes(raw)).lower(),
            "chainId": tx["chainId"], "to": to_checksum_address(tx["to"]).lower(), "value": str(tx["value"]),
            "data": "0x" + bytes(tx["data"]).hex(), "nonce": tx["nonce"],
            "hashMatches": "0x" + keccak(bytes(raw)).hex() == d["hash"],
        }))
        """

    /// eth-abi: the call data of `signature` with `args` (what a contract call must carry).
    static let abiOracle = """
        import json, sys
        from eth_abi import encode
        from eth_utils import function_signature_to_4byte_selector
        d = json.load(sys.stdin)
        args = [int(v) if t.startswith(("uint", "int")) else v for t, v in zip(d["types"], d["values"])]
        print("0x" + (function_signature_to_4byte_selector(d["signature"]) + encode(d["types"], args)).hex())
        """

    /// solders: whether a Solana transaction's signature verifies, and its transfer's parts.
    static let solanaOracle = """
        import base64, json, sys
        from solders.transaction import Transaction
        d = json.load(sys.stdin)
        tx = Transaction.from_bytes(base64.b64decode(d["raw"]))
        keys = [str(k) for k in tx.message.account_keys]
        ix = tx.message.instructions[0]
        data = bytes(ix.data)
        print(json.dumps({
            "verified": all(tx.verify_with_results()), "from": keys[0], "to": keys[1],
            "program": keys[ix.program_id_index], "kind": int.from_bytes(data[:4], "little"),
            "lamports": int.from_bytes(data[4:12], "little"), "signature": str(tx.signatures[0]),
        }))
        """

    static func oracle(_ script: String, _ input: [String: Any]) throws -> [String: Any] {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)
        let out = try PythonOracle.run(script, stdin: json)
        return try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(out)")
    }

    /// Prepare (checked against the schema's PrepareResponse), Execute, TransactionStatus.
    static func prepareAndExecute(_ wire: SDKWire, _ method: WaasMethod, _ body: String) async throws -> (
        prepared: [String: Any], executed: [String: Any], status: [String: Any]
    ) {
        let prepared = try await wire.ok(method, body)
        let txnId = try #require(prepared["txnId"] as? String)
        #expect(prepared["status"] as? String == "quoted")
        #expect(prepared["sponsored"] as? Bool == false)
        #expect(RFC3339.parse(try #require(prepared["expiresAt"] as? String)) != nil)
        let fee = try #require((prepared["feeOptions"] as? [[String: Any]])?.first)
        #expect((fee["token"] as? [String: Any])?["type"] as? String == "native")
        #expect(fee["value"] as? String != nil && fee["displayValue"] as? String != nil)
        let executed = try await wire.ok(.execute, #"{"txnId":"\#(txnId)"}"#)
        #expect(executed["status"] as? String == "executed")
        let status = try await wire.ok(.transactionStatus, #"{"txnId":"\#(txnId)"}"#)
        #expect(status["status"] as? String == "executed")
        #expect(status["txnHash"] as? String == executed["txnHash"] as? String)
        return (prepared, executed, status)
    }

    @Test func anOwnerSendsNativeAndContractCallsFromItsOwnWallet() async throws {
        let (world, wire) = try await SchemaWireTests.world()
        defer { world.remove() }
        let wallet = world.wallet
        let native = try await Self.prepareAndExecute(
            wire, .prepareEthereumTransaction,
            #"{"network":"80002","walletId":"\#(wallet.id)","to":"\#(SchemaWireTests.receiver)","value":"1000","mode":"native"}"#
        )
        let fee = try #require((native.prepared["feeOptions"] as? [[String: Any]])?.first)
        #expect((fee["token"] as? [String: Any])?["symbol"] as? String == "POL")
        #expect(fee["value"] as? String == "630000000000000" && fee["displayValue"] as? String == "0.00063")
        let decoded = try Self.oracle(
            Self.evmOracle,
            ["raw": try #require(native.executed["rawTransaction"] as? String), "hash": native.status["txnHash"]!])
        #expect(decoded["from"] as? String == wallet.address.lowercased())
        #expect(decoded["chainId"] as? Int == 80002 && decoded["value"] as? String == "1000")
        #expect(decoded["to"] as? String == SchemaWireTests.receiver && decoded["hashMatches"] as? Bool == true)

        // ERC-20 transfer(address,uint256) by method name and args; eth-abi says what its data must be.
        let call = try await Self.prepareAndExecute(
            wire, .prepareEthereumContractCall,
            #"{"network":"80002","walletId":"\#(wallet.id)","contract":"\#(Self.token)","method":"transfer","args":[{"type":"address","value":"\#(SchemaWireTests.receiver)"},{"type":"uint256","value":"5"}],"mode":"native"}"#
        )
        let callTx = try Self.oracle(
            Self.evmOracle,
            ["raw": try #require(call.executed["rawTransaction"] as? String), "hash": call.status["txnHash"]!])
        let expectedData = try PythonOracle.run(
            Self.abiOracle,
            stdin:
                #"{"signature":"transfer(address,uint256)","types":["address","uint256"],"values":["\#(SchemaWireTests.receiver)","5"]}"#
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(callTx["data"] as? String == expectedData && callTx["to"] as? String == Self.token)
        #expect(callTx["value"] as? String == "0" && callTx["nonce"] as? Int == 1)
        #expect(call.prepared["token"] as? String == Self.token && call.prepared["amount"] as? String == "5")

        // Any other method is the owner's to call: a signature with a string and a bool.
        let other = try await Self.prepareAndExecute(
            wire, .prepareEthereumContractCall,
            #"{"network":"80002","walletId":"\#(wallet.id)","contract":"\#(Self.token)","method":"setName(string,bool)","args":[{"type":"string","value":"walletops"},{"type":"bool","value":true}],"mode":"native"}"#
        )
        let otherTx = try Self.oracle(
            Self.evmOracle,
            ["raw": try #require(other.executed["rawTransaction"] as? String), "hash": other.status["txnHash"]!])
        let otherData = try PythonOracle.run(
            Self.abiOracle,
            stdin: #"{"signature":"setName(string,bool)","types":["string","bool"],"values":["walletops",true]}"#
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(otherTx["data"] as? String == otherData)

        // Executing again answers the recorded result; relayer mode is sponsored and offers no fee.
        let txnId = try #require(native.prepared["txnId"] as? String)
        #expect(
            try await wire.ok(.execute, #"{"txnId":"\#(txnId)"}"#)["txnHash"] as? String == native.status["txnHash"]
                as? String)
        let sponsored = try await wire.ok(
            .prepareEthereumTransaction,
            #"{"network":"80002","walletId":"\#(wallet.id)","to":"\#(SchemaWireTests.receiver)","value":"1","mode":"relayer"}"#
        )
        #expect(sponsored["sponsored"] as? Bool == true && (sponsored["feeOptions"] as? [Any])?.isEmpty == true)
    }

    @Test func refusalsCarryTheSchemasCodes() async throws {
        let (world, wire) = try await SchemaWireTests.world()
        defer { world.remove() }
        let wallet = world.wallet
        let base = #""network":"80002","walletId":"\#(wallet.id)","to":"\#(SchemaWireTests.receiver)""#
        #expect(
            try await wire.send(.prepareEthereumTransaction, #"{\#(base),"value":"1","mode":"gasless"}"#).errorCode
                == 7305)
        #expect(
            try await wire.send(.prepareEthereumTransaction, #"{\#(base),"value":"1","sessionId":"ses_x"}"#).errorCode
                == 7200)
        #expect(
            try await wire.send(.prepareEthereumTransaction, #"{\#(base),"value":"1","data":"zz"}"#).errorCode == 7200)
        #expect(try await wire.send(.execute, #"{"txnId":"txn_unknown"}"#).errorCode == 7308)
        #expect(try await wire.send(.transactionStatus, #"{"txnId":"txn_unknown"}"#).errorCode == 7308)
        let prepared = try await wire.ok(.prepareEthereumTransaction, #"{\#(base),"value":"1"}"#)
        let txnId = try #require(prepared["txnId"] as? String)
        let badFee = try await wire.send(.execute, #"{"txnId":"\#(txnId)","feeOption":{"token":"USDC"}}"#)
        #expect(badFee.errorCode == 7310 && badFee.message?.contains("USDC") == true)
        #expect(
            try await wire.ok(.execute, #"{"txnId":"\#(txnId)","feeOption":{"token":"POL","index":0}}"#)["status"]
                as? String == "executed")
        // Another account's credential sees no such transaction.
        let (stranger, _) = try await world.core.signIn(email: "stranger@example.com")
        let strangers = SDKWire(client: stranger, transport: world.core.transport)
        #expect(try await strangers.send(.transactionStatus, #"{"txnId":"\#(txnId)"}"#).errorCode == 7308)
        #expect(try await strangers.send(.prepareEthereumTransaction, #"{\#(base),"value":"1"}"#).errorCode == 7300)
        let args = #"[{"type":"address","value":"\#(SchemaWireTests.receiver)"}]"#
        let mismatch = try await wire.send(
            .prepareEthereumContractCall,
            #"{"network":"80002","walletId":"\#(wallet.id)","contract":"\#(Self.token)","method":"transfer(address,uint256)","args":\#(args)}"#
        )
        #expect(mismatch.errorCode == 7200)
    }

    @Test func aSessionsSpendsStayBoundedByItsGrantsEvenConcurrently() async throws {
        let (world, _) = try await SchemaWireTests.world()
        defer { world.remove() }
        let remote = try await world.remote()
        let session = try await world.authorize(remote, grants: [.erc20Transfer(token: Self.token, limit: "10")])
            .sessionId
        let app = SDKWire(client: remote, transport: world.core.transport)
        func call(_ method: String, _ amount: String) -> String {
            #"{"network":"80002","walletId":"\#(world.wallet.id)","contract":"\#(Self.token)","method":"\#(method)","args":[{"type":"address","value":"\#(SchemaWireTests.receiver)"},{"type":"uint256","value":"\#(amount)"}],"mode":"native","sessionId":"\#(session)"}"#
        }
        // Ten prepared transfers of 3 against a limit of 10, executed at once: exactly three pass.
        var txnIds: [String] = []
        for _ in 0..<10 {
            txnIds.append(
                try #require(try await app.ok(.prepareEthereumContractCall, call("transfer", "3"))["txnId"] as? String))
        }
        let codes = try await withThrowingTaskGroup(of: Int?.self) { group in
            for txnId in txnIds { group.addTask { try await app.send(.execute, #"{"txnId":"\#(txnId)"}"#).errorCode } }
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(codes.filter { $0 == nil }.count == 3 && codes.filter { $0 == 7205 }.count == 7, "\(codes)")
        let usage = try await world.usage(remote, session: session)
        #expect(usage.first?.used == "9" && usage.first?.remaining == "1")
        // Past the limit at prepare already; any other contract call is no grant's; no session is refused.
        #expect(try await app.send(.prepareEthereumContractCall, call("transfer", "2")).errorCode == 7205)
        #expect(try await app.send(.prepareEthereumContractCall, call("approve", "1")).errorCode == 7205)
        let noSession = try await app.send(
            .prepareEthereumTransaction,
            #"{"network":"80002","walletId":"\#(world.wallet.id)","to":"\#(SchemaWireTests.receiver)","value":"1"}"#)
        #expect(noSession.errorCode == 7200)
        // The owner may not execute the session's transfers, nor the app the owner's.
        let owners = SDKWire(client: world.owner, transport: world.core.transport)
        let ownTxn = try #require(
            try await owners.ok(
                .prepareEthereumTransaction,
                #"{"network":"80002","walletId":"\#(world.wallet.id)","to":"\#(SchemaWireTests.receiver)","value":"1"}"#
            )["txnId"] as? String)
        #expect(try await app.send(.execute, #"{"txnId":"\#(ownTxn)"}"#).errorCode == 7308)
        #expect(try await owners.send(.execute, #"{"txnId":"\#(txnIds[0])"}"#).errorCode == 7308)
        // The owner still reads the session's transfers.
        #expect(try await owners.ok(.transactionStatus, #"{"txnId":"\#(txnIds[0])"}"#)["status"] != nil)
    }

    @Test func solanaTransfersAreSignedSystemTransfers() async throws {
        let (world, wire) = try await SchemaWireTests.world()
        defer { world.remove() }
        let wallet = try #require(
            try await wire.ok(.createWallet, #"{"networkFamily":"solana"}"#)["wallet"] as? [String: Any])
        let id = try #require(wallet["id"] as? String)
        let recipient = Ed25519.PrivateKey.generate().solanaAddress
        let result = try await Self.prepareAndExecute(
            wire, .prepareSolanaTransfer,
            #"{"network":"solana-devnet","walletId":"\#(id)","asset":"SOL","recipient":{"address":"\#(recipient)"},"amount":"1500000","mode":"native"}"#
        )
        let fee = try #require((result.prepared["feeOptions"] as? [[String: Any]])?.first)
        #expect(fee["value"] as? String == "5000" && fee["displayValue"] as? String == "0.000005")
        let tx = try Self.oracle(Self.solanaOracle, ["raw": try #require(result.executed["rawTransaction"] as? String)])
        #expect(tx["verified"] as? Bool == true)
        #expect(tx["from"] as? String == wallet["address"] as? String && tx["to"] as? String == recipient)
        #expect(tx["program"] as? String == "11111111111111111111111111111111")
        #expect(tx["kind"] as? Int == 2 && tx["lamports"] as? Int == 1_500_000)
        #expect(tx["signature"] as? String == result.status["txnHash"] as? String)
        let other = #""network":"solana-devnet","walletId":"\#(id)","recipient":{"address":"\#(recipient)"}"#
        #expect(
            try await wire.send(.prepareSolanaTransfer, #"{\#(other),"asset":"USDC","amount":"1"}"#).errorCode == 7312)
        #expect(
            try await wire.send(.prepareSolanaTransfer, #"{\#(other),"asset":"SOL","amount":"0"}"#).errorCode == 7200)
        let evm = try await wire.send(
            .prepareSolanaTransfer,
            #"{"network":"solana","walletId":"\#(world.wallet.id)","asset":"SOL","recipient":{"address":"\#(recipient)"},"amount":"1"}"#
        )
        #expect(evm.errorCode == 7303)
    }

    @Test func anOwnerSignedInWithAnEthereumKeySpendsAndListsAsOwner() async throws {
        let core = try AccessTransport.http.makeCore()
        defer { core.removeServed() }
        // The official SDK's Ethereum-key signer (ecdsa-p256k-eip191) signing in as a direct credential.
        let owner = WaasClient(
            transport: core.transport, publishableKey: core.publishableKey,
            signer: EthereumRequestSigner(key: .generate()))
        let auth = try await CoreFixture.signIn(owner, service: core.service, email: "eth-owner@example.com")
        #expect(auth.credential.type == .direct)
        let wire = SDKWire(client: owner, transport: core.transport)
        let wallet = try #require(
            try await wire.ok(.createWallet, #"{"networkFamily":"evm"}"#)["wallet"] as? [String: Any])
        let id = try #require(wallet["id"] as? String)
        let listed = try await wire.ok(.listAccess, #"{"walletId":"\#(id)"}"#)
        let credentials = try #require(listed["credentials"] as? [[String: Any]])
        #expect(credentials.contains { $0["isCaller"] as? Bool == true && $0["type"] as? String == "direct" })
        let result = try await Self.prepareAndExecute(
            wire, .prepareEthereumTransaction,
            #"{"network":"80002","walletId":"\#(id)","to":"\#(SchemaWireTests.receiver)","value":"7"}"#)
        #expect(result.status["txnHash"] is String)
    }
}
