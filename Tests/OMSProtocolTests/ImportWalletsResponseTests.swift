import Foundation
import OMSProtocol
import Testing

/// The ImportWallets reply's own JSON writer and reader agree with the synthesized Codable both ways.
@Suite struct ImportWalletsResponseTests {
    static func sample() -> ImportWalletsResponse {
        let references: [String?] = [
            nil, "", "plain", "quote \" backslash \\ slash /", "tab\tnew\nline\u{1}\u{7f}", "été 🙂",
        ]
        var results: [ImportWalletsResult] = []
        for (index, reference) in references.enumerated() {
            let wallet = Wallet(
                id: "wal_\(index)", address: "0x\(String(repeating: "aB", count: 20))",
                networkFamily: index % 2 == 0 ? .evm : .solana, keyOrigin: index % 3 == 0 ? .imported : .enclave,
                type: index == 1 ? nil : (index % 2 == 0 ? .ethereum : .solana), reference: reference)
            results.append(ImportWalletsResult(wallet: wallet))
            results.append(
                ImportWalletsResult(
                    wallet: index % 2 == 0 ? wallet : nil,
                    error: ImportItemError(code: 7313 + index, name: "Name\(index)", message: reference ?? "m")))
        }
        return ImportWalletsResponse(results: results)
    }

    @Test func ownJSONMatchesCodableBothWays() throws {
        let response = Self.sample()
        #expect(response.results.count == 12)
        let fast = response.jsonBytes()
        #expect(try JSONDecoder().decode(ImportWalletsResponse.self, from: Data(fast)) == response)
        let codable = try WaasClient.encodeBody(response)
        #expect(try ImportWalletsResponse(jsonBytes: codable) == response)
        #expect(try ImportWalletsResponse(jsonBytes: fast) == response)
    }

    /// The byte reader takes the writer's compact form; whitespace, other member orders, nulls, unknown
    /// members and escapes (some of which it leaves to the general parser) read as Codable reads them.
    @Test func layoutVariantsReadAsCodableReadsThem() throws {
        let wallet = #"{"id":"w1","address":"0xab","networkFamily":"evm","keyOrigin":"imported","type":"ethereum"}"#
        let variants = [
            #"{"results":[]}"#,
            #" { "results" : [ { "wallet" : \#(wallet) } ] } "#,
            #"{"results":[{"error":{"message":"m","name":"N","code":-7313},"wallet":null}]}"#,
            #"{"results":[{"wallet":{"reference":null,"type":null,"keyOrigin":"enclave","networkFamily":"solana","#
                + #""address":"A","id":"w2"},"error":null}]}"#,
            #"{"results":[{"wallet":\#(wallet),"extra":1}],"more":"x"}"#,
            #"{"results":[{"error":{"code":0,"name":"N\u0041","message":"caf\u00e9 \"q\""}}]}"#,
            #"{"results":[{"wallet":\#(wallet)},{"error":{"code":7200,"name":"N","message":"é🙂"}}]}"#,
        ]
        try ReplyReaderChecks.expectReadAsCodable(variants) { try ImportWalletsResponse(jsonBytes: $0) }
        #expect(variants.count == 7)
    }

    @Test func malformedRepliesNameTheMember() {
        let cases: [(String, String)] = [
            (#"[]"#, "results"),
            (#"{"results":{}}"#, "results"),
            (#"{"results":[1]}"#, "results[0]"),
            (
                #"{"results":[{"wallet":{"address":"a","networkFamily":"evm","keyOrigin":"imported"}}]}"#,
                "results[0].wallet.id"
            ),
            (
                #"{"results":[{"wallet":{"id":1,"address":"a","networkFamily":"evm","keyOrigin":"imported"}}]}"#,
                "results[0].wallet.id"
            ),
            (#"{"results":[{},{"error":{"code":"7200","name":"n","message":"m"}}]}"#, "results[1].error"),
            (
                #"{"results":[{"wallet":{"id":"w","address":"a","networkFamily":"evm","keyOrigin":"imported","reference":3}}]}"#,
                "results[0].wallet.reference"
            ),
            (#"{"results":[}"#, "not JSON"),
        ]
        ReplyReaderChecks.expectRefused(cases) { _ = try ImportWalletsResponse(jsonBytes: $0) }
    }
}
