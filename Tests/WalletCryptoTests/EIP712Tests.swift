import Foundation
import TestSupport
import Testing
import WalletCrypto

/// EIP-712 against the EIP's own example (the Mail struct, Tests/Fixtures/vectors/eip712_mail_example.json)
/// and against the encoding rules it states for the other member types.
@Suite struct EIP712Tests {
    static func vector() throws -> (JSONValue, [String: Any]) {
        let data = try Fixtures.data("vectors/eip712_mail_example.json")
        let raw = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let parsed = try JSONValue.parse(String(decoding: data, as: UTF8.self))
        return (try #require(parsed["typedData"]), raw)
    }

    @Test func theMailExampleHasThePublishedHashesAndSignature() throws {
        let (json, vector) = try Self.vector()
        let typed = try EIP712TypedData(json: json)
        #expect(try typed.encodeType("Mail") == vector["encodeType"] as? String)
        #expect(Base16.encodePrefixed(try typed.domainSeparator()) == vector["domainSeparator"] as? String)
        #expect(
            Base16.encodePrefixed(try typed.hashStruct("Mail", typed.message)) == vector["hashStruct"] as? String)
        let digest = try typed.signingHash()
        #expect(Base16.encodePrefixed(digest) == vector["signingHash"] as? String)
        // The published signature recovers to Cow, and signing with Cow's key gives it again (RFC 6979).
        let published = try #require(vector["signature"] as? [String: Any])
        let bytes =
            try Base16.decode(try #require(published["r"] as? String))
            + Base16.decode(try #require(published["s"] as? String)) + [UInt8(try #require(published["v"] as? Int))]
        let signature = try Secp256k1.RecoverableSignature(bytes: bytes)
        let signer = try EthereumAddress(try #require(vector["signer"] as? String))
        #expect(try Secp256k1.PublicKey(recoveringFrom: signature, digest: digest).ethereumAddress == signer)
        let key = try Secp256k1.PrivateKey(
            SecretBytes(try Base16.decode(try #require(vector["privateKey"] as? String))))
        #expect(try key.signature(forDigest: digest).bytes(vOffset: 27) == bytes)
    }

    @Test func aChangedMemberChangesTheDigest() throws {
        let (json, _) = try Self.vector()
        let original = try EIP712TypedData(json: json).signingHash()
        var text = json.serialized()
        text = text.replacingOccurrences(of: "Hello, Bob!", with: "Hello, Bob?")
        #expect(try EIP712TypedData(json: try JSONValue.parse(text)).signingHash() != original)
    }

    @Test func theDomainTypeIsDerivedWhenAbsent() throws {
        let (json, _) = try Self.vector()
        var root = try #require(json.objectValue)
        var types = try #require(root["types"]?.objectValue)
        types = JSONObject(types.filter { $0.key != "EIP712Domain" }.map { ($0.key, $0.value) })
        root = JSONObject(root.map { ($0.key, $0.key == "types" ? JSONValue.object(types) : $0.value) })
        #expect(try EIP712TypedData(json: .object(root)).signingHash() == EIP712TypedData(json: json).signingHash())
    }

    @Test func integersBoolsBytesAndArraysEncodeAsTheEIPSays() throws {
        func word(_ type: String, _ value: JSONValue) throws -> [UInt8] {
            let doc: JSONValue = [
                "types": ["T": [["name": "v", "type": .string(type)]]], "primaryType": "T", "domain": [:],
                "message": ["v": value],
            ]
            let typed = try EIP712TypedData(json: doc)
            // hashStruct(T, {v}) = keccak(typeHash || enc(v)): recompute with the expected word.
            return try typed.hashStruct("T", try #require(doc["message"]?.objectValue))
        }
        func expected(_ type: String, _ encoded: [UInt8]) -> [UInt8] {
            Keccak256.hash(Keccak256.hash(Array("T(\(type) v)".utf8)) + encoded)
        }
        let minusOne = [UInt8](repeating: 0xff, count: 32)
        #expect(try word("int8", .int(-1)) == expected("int8", minusOne))
        #expect(try word("int256", "-1") == expected("int256", minusOne))
        #expect(try word("uint256", "0x0100") == expected("uint256", [UInt8](repeating: 0, count: 30) + [1, 0]))
        #expect(try word("bool", true) == expected("bool", [UInt8](repeating: 0, count: 31) + [1]))
        #expect(try word("bytes2", "0xabcd") == expected("bytes2", [0xab, 0xcd] + [UInt8](repeating: 0, count: 30)))
        #expect(try word("bytes", "0xabcd") == expected("bytes", Keccak256.hash([0xab, 0xcd])))
        let array = Keccak256.hash([UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [2])
        #expect(try word("uint8[]", [1, 2]) == expected("uint8[]", array))
        // Out of range, wrong lengths and unknown types are refused, never truncated.
        #expect(throws: EIP712TypedData.Error.self) { try word("uint8", 256) }
        #expect(throws: EIP712TypedData.Error.self) { try word("int8", 128) }
        #expect(throws: EIP712TypedData.Error.self) { try word("int8", -129) }
        #expect(throws: EIP712TypedData.Error.self) { try word("uint256", -1) }
        #expect(throws: EIP712TypedData.Error.self) { try word("bytes2", "0xab") }
        #expect(throws: EIP712TypedData.Error.self) { try word("uint8[3]", [1, 2]) }
        #expect(throws: EIP712TypedData.Error.self) { try word("float", 1) }
        #expect(try word("int8", -128).count == 32)
        #expect(try word("uint8", 255).count == 32)
    }
}
