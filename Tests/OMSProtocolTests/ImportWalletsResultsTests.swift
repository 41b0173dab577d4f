import Testing
import WalletCrypto

@testable import OMSProtocol

/// How the client reads an attested ImportWallets reply against the items it sent
/// (`WaasClient.results(of:for:)`): one answer per item in order, and a reply that does not fit the items
/// refused whole, naming the result at fault.
@Suite struct ImportWalletsResultsTests {
    static func item(_ family: NetworkFamily, _ reference: String?) -> ImportItem {
        ImportItem(
            privateKey: SecretBytes([UInt8](repeating: 1, count: 32)), networkFamily: family, reference: reference)
    }

    static func wallet(_ id: String, _ family: NetworkFamily, _ reference: String?, origin: KeyOrigin = .imported)
        -> Wallet
    {
        Wallet(
            id: id, address: "0x" + String(repeating: "ab", count: 20), networkFamily: family, keyOrigin: origin,
            type: family == .evm ? .ethereum : .solana, reference: reference)
    }

    static let held = ImportItemError(WaasError(.addressAlreadyImported, "wallets[1]: already exists"))

    @Test func everyItemGetsItsAnswerInOrder() throws {
        let items = [Self.item(.evm, "a"), Self.item(.evm, "b"), Self.item(.solana, nil), Self.item(.evm, "d")]
        let response = ImportWalletsResponse(results: [
            ImportWalletsResult(wallet: Self.wallet("w1", .evm, "a")),
            ImportWalletsResult(wallet: Self.wallet("w0", .evm, "older"), error: Self.held),
            ImportWalletsResult(error: ImportItemError(WaasError(.invalidRequest, "wallets[2]: not a seed"))),
            ImportWalletsResult(error: Self.held),
        ])
        let results = try WaasClient.results(of: response, for: items)
        #expect(results.count == 4)
        guard case .imported(let first) = results[0], case .alreadyImported(let second) = results[1],
            case .failed(let third) = results[2], case .failed(let fourth) = results[3]
        else {
            Issue.record("answers out of kind: \(results)")
            return
        }
        #expect(first.id == "w1" && second.id == "w0")
        #expect(third.code == .invalidRequest && third.message == "wallets[2]: not a seed")
        #expect(fourth.code == .addressAlreadyImported)
    }

    @Test(arguments: [
        ("count", [ImportWalletsResult]()),
        ("family", [ImportWalletsResult(wallet: Self.wallet("w1", .solana, "a"))]),
        ("reference", [ImportWalletsResult(wallet: Self.wallet("w1", .evm, "other"))]),
        ("origin", [ImportWalletsResult(wallet: Self.wallet("w1", .evm, "a", origin: .enclave))]),
        (
            "code",
            [
                ImportWalletsResult(
                    wallet: Self.wallet("w1", .evm, "a"), error: ImportItemError(WaasError(.invalidRequest, "no")))
            ]
        ),
        ("empty", [ImportWalletsResult()]),
    ])
    func aReplyThatDoesNotFitTheItemsIsRefused(_ fault: String, _ results: [ImportWalletsResult]) {
        let expected = [
            "count": "0 results for 1 keys", "family": "result 0 is a solana wallet, not evm",
            "reference": "result 0 is not a wallet imported with this item's reference",
            "origin": "result 0 is not a wallet imported with this item's reference",
            "code": "result 0 has a wallet with error 7200", "empty": "result 0 has neither wallet nor error",
        ]
        do {
            _ = try WaasClient.results(of: ImportWalletsResponse(results: results), for: [Self.item(.evm, "a")])
            Issue.record("\(fault): accepted")
        } catch let error as WaasClientError {
            #expect(error.code == .invalidResponse)
            #expect(error.message == "ImportWallets: " + expected[fault]!, "\(fault)")
        } catch {
            Issue.record("\(fault): \(error)")
        }
    }
}
