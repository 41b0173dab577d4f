import OMSProtocol
import Testing

/// The CreateWallets reply reader: the compact form and its variants read as the synthesized Codable
/// reads them, and a bad reply is named by member (or by byte offset when it is not JSON).
@Suite struct CreateWalletsResponseTests {
    static let wallet = #"{"id":"w1","address":"0xab","networkFamily":"evm","keyOrigin":"enclave","type":"ethereum"}"#

    /// Whitespace, other member orders, nulls, unknown members and escapes (which the byte reader leaves
    /// to the general parser) read as Codable reads them.
    @Test func layoutVariantsReadAsCodableReadsThem() throws {
        let variants = [
            #"{"wallets":[]}"#,
            #"{"wallets":[{"wallet":\#(Self.wallet),"created":true}]}"#,
            #" { "wallets" : [ { "created" : false , "wallet" : \#(Self.wallet) } ] } "#,
            #"{"wallets":[{"wallet":{"reference":null,"type":null,"keyOrigin":"imported","networkFamily":"solana","#
                + #""address":"A","id":"w2"},"created":true}]}"#,
            #"{"more":[1,{"x":2}],"wallets":[{"wallet":\#(Self.wallet),"created":true,"extra":null}]}"#,
            #"{"wallets":[{"wallet":{"id":"w\u0031","address":"a","networkFamily":"evm","keyOrigin":"enclave","#
                + #""reference":"x\u00e9\ud83d\ude00\/\"\n"},"created":false}]}"#,
        ]
        try ReplyReaderChecks.expectReadAsCodable(variants) { try CreateWalletsResponse(jsonBytes: $0) }
        #expect(variants.count == 6)
    }

    @Test func malformedRepliesNameTheMember() {
        let wallet = Self.wallet
        let cases: [(String, String)] = [
            (#"[]"#, "wallets: expected an array"),
            (#"{"wallets":3}"#, "wallets: expected an array"),
            (#"{"wallets":[1]}"#, "wallets[0]: expected an object"),
            (#"{"wallets":[{"wallet":\#(wallet),"created":true},{"created":true}]}"#, "wallets[1].wallet: expected"),
            (#"{"wallets":[{"wallet":{"id":"x"},"created":true}]}"#, "wallets[0].wallet.address: expected a string"),
            (#"{"wallets":[{"wallet":\#(wallet)}]}"#, "wallets[0].created: expected true or false"),
            (#"{"wallets":[{"wallet":\#(wallet),"created":"yes"}]}"#, "wallets[0].created"),
            (
                #"{"wallets":[{"wallet":{"id":"w","address":"a","networkFamily":"evm","keyOrigin":"enclave","#
                    + #""reference":3},"created":true}]}"#,
                "wallets[0].wallet.reference: expected a string"
            ),
            ("{", "not JSON"),
            (#"{"wallets":[]} x"#, "byte offset 15"),
            (#"{"wallets":[{"wallet":{"id":"a\qb"}}]}"#, "invalid escape at byte offset 31"),
        ]
        ReplyReaderChecks.expectRefused(cases) { _ = try CreateWalletsResponse(jsonBytes: $0) }
    }
}
