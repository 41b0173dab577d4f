import Foundation
import OMSProtocol
import Testing

/// The ImportWallets request's own JSON writer and reader agree with the synthesized Codable.
@Suite struct ImportWalletsRequestTests {
    @Test func ownJSONMatchesCodableBothWays() throws {
        let request = ImportWalletsRequest(
            keyMaterial: BatchKeyMaterial(keyId: "rk_1", suite: "p256-sha256-aes256gcm", encapsulatedKey: "QUJD"),
            wallets: [
                ImportWalletsItem(networkFamily: .evm, ciphertext: "AAAA"),
                ImportWalletsItem(networkFamily: .solana, reference: "", ciphertext: "BBBB"),
                ImportWalletsItem(networkFamily: .unknown("bitcoin"), reference: "q\"\\\n🙂", ciphertext: "CC=="),
            ])
        #expect(try JSONDecoder().decode(ImportWalletsRequest.self, from: Data(request.jsonBytes())) == request)
        #expect(ImportWalletsRequest(jsonBytes: try WaasClient.encodeBody(request)) == request)
        #expect(ImportWalletsRequest(jsonBytes: request.jsonBytes()) == request)
        // Anything not well formed is left to the synthesized decoder.
        for text in [
            #"{"keyMaterial":{"keyId":"k","suite":"s"},"wallets":[]}"#,
            #"{"keyMaterial":{"keyId":"k","suite":"s","encapsulatedKey":"e"},"wallets":[{"networkFamily":1,"ciphertext":"c"}]}"#,
            #"{"keyMaterial":{"keyId":"k","suite":"s","encapsulatedKey":"e"},"wallets":[{"networkFamily":"evm","reference":2,"ciphertext":"c"}]}"#,
            #"[]"#, "{",
        ] {
            #expect(ImportWalletsRequest(jsonBytes: Array(text.utf8)) == nil, "\(text)")
            #expect(throws: (any Error).self) {
                try JSONDecoder().decode(ImportWalletsRequest.self, from: Data(text.utf8))
            }
        }
    }

    /// Whitespace, other member orders, nulls, unknown members and escapes read as Codable reads them.
    @Test func layoutVariantsReadAsCodableReadsThem() throws {
        let material = #"{"keyId":"k","suite":"s","encapsulatedKey":"e"}"#
        let variants = [
            #"{"keyMaterial":\#(material),"wallets":[]}"#,
            #" { "wallets" : [ { "ciphertext" : "c" , "networkFamily" : "evm" } ] , "keyMaterial" : \#(material) } "#,
            #"{"keyMaterial":{"encapsulatedKey":"e","suite":"s","keyId":"k"},"wallets":[{"networkFamily":"solana","#
                + #""reference":null,"ciphertext":"c"},{"networkFamily":"evm","reference":"r\u00e9","ciphertext":"d"}]}"#,
            #"{"keyMaterial":\#(material),"wallets":[{"networkFamily":"evm","ciphertext":"c","x":[1]}],"y":null}"#,
        ]
        for text in variants {
            let expected = try JSONDecoder().decode(ImportWalletsRequest.self, from: Data(text.utf8))
            #expect(ImportWalletsRequest(jsonBytes: Array(text.utf8)) == expected, "\(text)")
        }
        #expect(variants.count == 4)
    }

    /// `ImportWalletsItem.encodedSize` is exactly what an item adds to the request's JSON (its comma
    /// included), for every key length and family and for references that need escapes: the client's
    /// byte budget rests on it.
    @Test func encodedSizeIsWhatAnItemAddsToTheRequest() {
        let material = BatchKeyMaterial(keyId: "rk_1", suite: "p256-sha256-aes256gcm", encapsulatedKey: "QUJD")
        let empty = ImportWalletsRequest(keyMaterial: material, wallets: []).jsonBytes().count
        let references: [String?] = [
            nil, "", "plain-1", "q\"\\\n\r\t\u{1}\u{1f}🙂é", String(repeating: "\u{0}", count: 128),
        ]
        for keyBytes in [32, 64, 1, 100] {
            for family in [NetworkFamily.evm, .solana] {
                for reference in references {
                    let ciphertext = CanonicalBase64.encode([UInt8](repeating: 7, count: keyBytes + 16))
                    let item = ImportWalletsItem(networkFamily: family, reference: reference, ciphertext: ciphertext)
                    let size = ImportWalletsItem.encodedSize(
                        keyBytes: keyBytes, networkFamily: family, reference: reference)
                    let one = ImportWalletsRequest(keyMaterial: material, wallets: [item]).jsonBytes().count
                    let two = ImportWalletsRequest(keyMaterial: material, wallets: [item, item]).jsonBytes().count
                    // The first item has no comma before it; each later one has.
                    #expect(one - empty == size - 1, "\(keyBytes) \(family) \(String(describing: reference))")
                    #expect(two - one == size, "\(keyBytes) \(family) \(String(describing: reference))")
                }
            }
        }
    }
}
