import Foundation
import OMSProtocol
import Testing

@testable import Jobs

/// Amounts in units (issue 26): native amounts in the network's symbol and decimals, ERC-20 amounts in
/// the token list's, base units and the address for a token the list does not name; exact decimals.
@Suite struct UsageUnitsTests {
    static let usdc = "0x41e94eb019c0762f9bfcf9fb1e58725bfb0e7582"
    static let weth = "0x52ef3d68bab452a294342dc3e5f464d7f610f72e"
    static let unknown = "0x3333333333333333333333333333333333333333"
    static let receiver = "0x1111111111111111111111111111111111111111"
    static let max = "115792089237316195423570985008687907853269984665640564039457584007913129639935"

    static let listJSON = """
        {"name": "ops", "keywords": ["a", "b"], "tokens": [
          {"chainId": 80002, "address": "\(usdc.uppercased().replacingOccurrences(of: "0X", with: "0x"))",
           "symbol": "USDC", "decimals": 6},
          {"chainId": "80002", "address": "\(weth)", "symbol": "WETH", "decimals": 18, "name": "Wrapped Ether"}
        ]}
        """

    static func rows(_ entries: [UsageEntry], chain: String = "80002", tokens: TokenList) -> [UsageReport.Row] {
        let session = RemoteSession(
            sessionId: "ses_a", walletId: "wal_a", signerAddress: "0xcred", grants: entries.map(\.grant),
            chainId: chain, expiresAt: "2030-01-01T00:00:00Z")
        return SessionUsageAction.rows(
            fields: ["session_id": "ses_a", "period_since": "2026-11-01T00:00:00Z"], session: session,
            usage: GetSessionUsageResponse(entries: entries),
            period: ReportPeriod(sinceText: "2026-11-01T00:00:00Z", untilText: ""), tokens: tokens, now: 0)
    }

    @Test func nativeAnd18And6DecimalTokensAndAMissingOne() throws {
        let tokens = try TokenList.parse(Array(Self.listJSON.utf8), path: "tokens.json")
        let rows = Self.rows(
            [
                UsageEntry(
                    grant: .nativeTransfer(to: Self.receiver, limit: "1000000000000000000"),
                    used: "850000000000000000", remaining: "150000000000000000", usedInPeriod: "250000000000000000"),
                UsageEntry(
                    grant: .erc20Transfer(token: Self.usdc, limit: "100000000"), used: "12500001",
                    remaining: "87499999", usedInPeriod: "500000"),
                UsageEntry(
                    grant: .erc20Transfer(token: Self.weth, to: Self.receiver, limit: Self.max), used: "1",
                    remaining: "115792089237316195423570985008687907853269984665640564039457584007913129639934",
                    usedInPeriod: "0"),
                UsageEntry(
                    grant: .erc20Transfer(token: Self.unknown, limit: "1000"), used: "250", remaining: "750",
                    usedInPeriod: "250"),
            ], tokens: tokens)
        #expect(rows.map(\.unit) == ["POL", "USDC", "WETH", Self.unknown])
        #expect(rows.map(\.decimals) == ["18", "6", "18", ""])
        #expect(rows.map(\.usedUnits) == ["0.85", "12.500001", "0.000000000000000001", "250"])
        #expect(
            rows.map(\.limitUnits) == [
                "1", "100", "115792089237316195423570985008687907853269984665640564039457.584007913129639935", "1000",
            ])
        #expect(
            rows.map(\.remainingUnits)[2]
                == "115792089237316195423570985008687907853269984665640564039457.584007913129639934")
        #expect(rows.map(\.usedInPeriodUnits) == ["0.25", "0.5", "0", "250"])
        // The raw columns stay for machines.
        #expect(rows.map(\.used) == ["850000000000000000", "12500001", "1", "250"])
        #expect(rows.map(\.grantToken) == ["", Self.usdc, Self.weth, Self.unknown])
    }

    @Test func nativeSymbolsPerNetwork() {
        let grant = UsageEntry(grant: .nativeTransfer(to: Self.receiver, limit: "2000000000000000000"), used: "1")
        #expect(Self.rows([grant], chain: "1", tokens: TokenList()).first?.unit == "ETH")
        #expect(Self.rows([grant], chain: "137", tokens: TokenList()).first?.unit == "POL")
        #expect(Self.rows([grant], chain: "56", tokens: TokenList()).first?.unit == "BNB")
        #expect(Self.rows([grant], chain: "43114", tokens: TokenList()).first?.limitUnits == "2")
        // A token listed for another chain is not this chain's.
        let other = TokenList([.init(chainId: 1, address: Self.usdc, symbol: "USDC", decimals: 6)])
        let row = Self.rows([UsageEntry(grant: .erc20Transfer(token: Self.usdc, limit: "5"), used: "5")], tokens: other)
        #expect(row.first?.unit == Self.usdc && row.first?.usedUnits == "5")
    }

    @Test func exactUnitsUpTo2To256() {
        #expect(DecimalAmount.units(Self.max, decimals: 0) == Self.max)
        #expect(DecimalAmount.units(Self.max, decimals: 6).hasSuffix("584007913129.639935"))
        #expect(
            DecimalAmount.units(Self.max, decimals: 77)
                == "1.15792089237316195423570985008687907853269984665640564039457584007913129639935")
        #expect(
            DecimalAmount.units(Self.max, decimals: 78)
                == "0.115792089237316195423570985008687907853269984665640564039457584007913129639935")
        #expect(DecimalAmount.units("1000000", decimals: 6) == "1")
        #expect(DecimalAmount.units("0", decimals: 6) == "0")
    }

    @Test func aBareArrayIsAList() throws {
        let list = try TokenList.parse(
            Array(#"[{"chainId": 1, "address": "\#(Self.usdc)", "symbol": "USDC", "decimals": 6}]"#.utf8),
            path: "t.json")
        #expect(
            list.token(chainId: 1, address: Self.usdc.uppercased().replacingOccurrences(of: "0X", with: "0x"))?.decimals
                == 6)
        #expect(list.token(chainId: 137, address: Self.usdc) == nil)
    }

    @Test func aMalformedListNamesFileLineAndField() {
        let cases: [(String, String)] = [
            ("[\n{\"chainId\": 1,\n", "token list t.json:3: not JSON: "),
            (
                "{\"tokens\": 5}",
                "token list t.json:1: expected an array of {chainId, address, symbol, decimals}, or an object with a tokens array"
            ),
            (
                "{\"keywords\": [\"x\"],\n \"tokens\": [\n  {\"chainId\": 1, \"address\": \"\(Self.usdc)\", \"symbol\": \"USDC\", \"decimals\": 6},\n  {\"chainId\": 1, \"address\": \"\(Self.weth)\", \"symbol\": \"WETH\", \"decimals\": \"18\"}\n]}",
                "token list t.json:4: tokens[1].decimals: expected an integer from 0 to 255, got \"18\""
            ),
            (
                "[{\"chainId\": 1, \"address\": \"0x12\", \"symbol\": \"X\", \"decimals\": 1}]",
                "token list t.json:1: [0].address: expected 0x + 40 hex digits, got \"0x12\""
            ),
            (
                "[\n\n {\"address\": \"\(Self.usdc)\", \"symbol\": \"X\", \"decimals\": 1}]",
                "token list t.json:3: [0].chainId: expected a chain id (a positive integer), got nothing"
            ),
            (
                "[{\"chainId\": 1, \"address\": \"\(Self.usdc)\", \"symbol\": \"US DC\", \"decimals\": 1}]",
                "token list t.json:1: [0].symbol: expected 1 to 32 characters without spaces, got \"US DC\""
            ),
            (
                "[{\"chainId\": 1, \"address\": \"\(Self.usdc)\", \"symbol\": \"A\", \"decimals\": 1},\n{\"chainId\": 1, \"address\": \"\(Self.usdc)\", \"symbol\": \"B\", \"decimals\": 1}]",
                "token list t.json:2: [1]: token \(Self.usdc) on chain 1 is listed again as B with 1 decimals (first A, 1)"
            ),
        ]
        for (text, expected) in cases {
            do {
                _ = try TokenList.parse(Array(text.utf8), path: "t.json")
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.message.hasPrefix(expected), "\(error.message)")
                #expect(error.inputProblem == .invalidData)
            }
        }
        do {
            _ = try TokenList.load(path: "/nonexistent/tokens.json")
            Issue.record("a missing file was accepted")
        } catch {
            #expect(error.message == "token list /nonexistent/tokens.json: no such file")
            #expect(error.inputProblem == .missing)
        }
    }
}

/// Names and summaries (issue 26): wallets by reference, apps by name, totals per app, wallet and network
/// that include ERC-20 usage in units.
@Suite struct UsageSummaryTests {
    static func row(
        app: String, wallet: String, reference: String, session: String, network: String = "polygonAmoy",
        unit: String, decimals: String, used: String, inPeriod: String, token: String = ""
    ) -> UsageReport.Row {
        var row = UsageReport.Row(values: [])
        (row.appName, row.walletId, row.walletReference, row.sessionId, row.network) = (
            app, wallet, reference, session, network
        )
        row.grantKind = token.isEmpty ? "nativeTransfer" : "erc20Transfer"
        (row.grantToken, row.unit, row.decimals, row.used, row.usedInPeriod) = (token, unit, decimals, used, inPeriod)
        return row
    }

    @Test func summariesByAppWalletAndNetworkIncludeTokens() {
        let usdc = UsageUnitsTests.usdc
        let unknown = UsageUnitsTests.unknown
        let rows = [
            Self.row(
                app: "Payroll Bot", wallet: "wal_1", reference: "treasury", session: "s1", unit: "POL",
                decimals: "18", used: "850000000000000000", inPeriod: "250000000000000000"),
            Self.row(
                app: "Payroll Bot", wallet: "wal_1", reference: "treasury", session: "s1", unit: "USDC",
                decimals: "6", used: "12500000", inPeriod: "500000", token: usdc),
            Self.row(
                app: "Payroll Bot", wallet: "wal_2", reference: "", session: "s2", unit: "USDC", decimals: "6",
                used: "7500000", inPeriod: "0", token: usdc),
            Self.row(
                app: "Game Server", wallet: "wal_2", reference: "", session: "s3", network: "mainnet", unit: "ETH",
                decimals: "18", used: "1", inPeriod: "1"),
            Self.row(
                app: "Game Server", wallet: "wal_2", reference: "", session: "s3", network: "mainnet", unit: unknown,
                decimals: "", used: "42", inPeriod: "2", token: unknown),
        ]
        let report = UsageReport(
            rows: rows, nearLimit: 80, generatedAt: 0, period: ReportPeriod(since: 1_793_491_200, until: nil))
        let apps = report.byApp
        #expect(apps.map(\.name) == ["Game Server", "Payroll Bot"])
        #expect(apps[1].totals.map(\.usedText) == ["0.85 POL", "20 USDC"])
        #expect(apps[1].totals.map(\.usedInPeriodText) == ["0.25 POL", "0.5 USDC"])
        #expect(apps[0].totals.map(\.usedText) == ["0.000000000000000001 ETH", "42 base units of 0x3333...3333"])
        let wallets = report.byWallet
        #expect(wallets.map(\.name) == ["treasury", "wal_2"], "a wallet without a reference keeps its id")
        #expect(wallets[1].sessions == 2 && wallets[1].grants == 3)
        let networks = report.byNetwork
        #expect(networks.map(\.name) == ["mainnet", "polygonAmoy"])
        #expect(networks[1].totals.map(\.usedText) == ["0.85 POL", "20 USDC"])
        let markdown = report.markdown
        #expect(markdown.contains("| treasury | wal_1 | 1 | 2 | 0.85 POL; 12.5 USDC | 0.25 POL; 0.5 USDC |"))
        #expect(markdown.contains("## By network"))
        #expect(!markdown.contains("| wallet_id | wallet_address |"), "not the CSV's columns")
        let json = try? JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any]
        let byNetwork = json?["by_network"] as? [[String: Any]]
        #expect((byNetwork?[1]["used"] as? [[String: String]])?.map { $0["used_units"] } == ["0.85", "20"])
        #expect((json?["by_wallet"] as? [[String: Any]])?.first?["wallet_reference"] as? String == "treasury")
    }
}
