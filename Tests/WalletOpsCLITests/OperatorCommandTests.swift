import Testing
import WalletCrypto

@testable import WalletOpsCLI

/// The pure parts of the operator commands: claim values, listen addresses, CSV quoting.
@Suite struct OperatorCommandTests {
    @Test func claimValuesAreNumbersAndBooleansOnlyWhenJSONSaysSo() {
        let cases: [(String, JSONValue)] = [
            ("3", .int(3)), ("-5", .int(-5)), ("0.5", .double(0.5)), ("true", .bool(true)), ("false", .bool(false)),
            ("02134", .string("02134")), ("null", .string("null")), ("hi", .string("hi")), ("", .string("")),
            ("\"q\"", .string("\"q\"")), ("[1]", .string("[1]")), ("True", .string("True")),
        ]
        for (text, expected) in cases {
            #expect(TokenIssueCommand.claimValue(text) == expected, "\(text)")
        }
    }

    @Test func listenAddresses() throws {
        #expect(try CoreServeCommand.parseListen("127.0.0.1:8787") == ("127.0.0.1", 8787))
        #expect(try CoreServeCommand.parseListen("127.0.0.1:0") == ("127.0.0.1", 0))
        #expect(try CoreServeCommand.parseListen("[::1]:9000") == ("::1", 9000))
        for bad in ["127.0.0.1", ":80", "host:70000", "host:x", "host:-1"] {
            #expect(throws: CLIError.self, "\(bad)") { try CoreServeCommand.parseListen(bad) }
        }
    }
}
