import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issues 4 and 5 through the built binary: a remote credential staged, authorized on an Ethereum
/// wallet, spending within and past its limit, usage, sessions, access list and revocation; against the
/// embedded core and against `walletops core serve`.
@Suite(.serialized) struct RemoteAccessEndToEndTests {
    typealias Scratch = OperatorEndToEndTests.Scratch

    static let receiver = "0x1111111111111111111111111111111111111111"

    static func run(_ arguments: [String], home: URL, core: URL?, expect status: Int32 = 0) throws -> CLIResult {
        try OperatorEndToEndTests.run(arguments, home: home, core: core, expect: status)
    }

    static func lastLine(_ result: CLIResult) -> String {
        OperatorEndToEndTests.lines(result.standardOutput).last ?? ""
    }

    static func jsonArray(_ result: CLIResult) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
    }

    static func tour(home: URL, core: URL?) throws {
        _ = try run(["login", "--dev", "--email", "owner@example.com", "--lifetime", "3600"], home: home, core: core)
        let walletId = lastLine(try run(["wallet", "create"], home: home, core: core))
        #expect(walletId.hasPrefix("wal_"))

        // Register: the key stays in the home (0600), the id is the address, alone on the last line.
        let registered = try run(
            [
                "remote", "register", "--app-name", "Trading Bot", "--app-url", "https://bot.example.com", "--lifetime",
                "7200",
            ], home: home, core: core)
        let credential = lastLine(registered)
        #expect(credential.hasPrefix("0x") && credential.count == 42, "\(registered)")
        #expect(registered.standardOutput.hasPrefix("expires_at: "))
        let keyFile = home.appendingPathComponent("remote/\(credential).json")
        let mode = try #require(
            (try FileManager.default.attributesOfItem(atPath: keyFile.path)[.posixPermissions] as? NSNumber)?.intValue)
        #expect(mode == 0o600)
        let stored = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: keyFile)) as? [String: Any])
        let remoteKey = try #require(stored["privateKey"] as? String)
        #expect(remoteKey.count == 64)
        #expect(!registered.standardOutput.contains(remoteKey) && !registered.standardError.contains(remoteKey))

        // Authorize a native limit of 1000 wei to one receiver on Polygon Amoy (by name).
        let authorized = try run(
            [
                "remote", "authorize", "--credential", credential, "--wallet", walletId, "--network", "polygonAmoy",
                "--native-to", receiver, "--native-limit", "1000",
            ], home: home, core: core)
        let session = lastLine(authorized)
        #expect(session.hasPrefix("ses_"), "\(authorized)")
        #expect(authorized.standardOutput.contains("network: polygonAmoy (80002)\n"))
        #expect(authorized.standardOutput.contains("expires_at: "))
        // Refused before any request: no grant, an unknown network.
        let noGrant = try run(
            ["remote", "authorize", "--credential", credential, "--wallet", walletId, "--network", "80002"],
            home: home, core: core, expect: 64)
        #expect(noGrant.standardError.hasPrefix("Error: give a grant"))
        let badNetwork = try run(
            [
                "remote", "authorize", "--credential", credential, "--network", "nowhere", "--native-to", receiver,
                "--native-limit", "1",
            ], home: home, core: core, expect: 64)
        #expect(badNetwork.standardError.contains("unknown network 'nowhere'"))

        // Within the limit: 400 + 500; the next 200 would pass 1000: refused, nothing spent.
        var hashes: Set<String> = []
        for value in ["400", "500"] {
            let sent = try run(
                [
                    "remote", "transfer", "--credential", credential, "--session", session, "--to", receiver, "--value",
                    value,
                ], home: home, core: core)
            let lines = OperatorEndToEndTests.lines(sent.standardOutput)
            #expect(lines.count == 3 && lines[0] == "status: executed", "\(sent)")
            let hash = String(lines.dropFirst().first?.dropFirst("tx_hash: ".count) ?? "")
            #expect(hash.hasPrefix("0x") && hash.count == 66, "\(sent)")
            hashes.insert(hash)
            #expect(!lastLine(sent).isEmpty && !lastLine(sent).hasPrefix("tx_hash"))
        }
        #expect(hashes.count == 2)
        let over = try run(
            [
                "remote", "transfer", "--credential", credential, "--session", session, "--to", receiver, "--value",
                "200",
            ], home: home, core: core, expect: 1)
        #expect(over.standardError.contains("UsageLimitExceeded"), "\(over)")
        #expect(over.standardOutput == "")

        // Usage: used is the exact sum, remaining the rest (as the owner and as the remote credential).
        let usage = try run(
            ["remote", "usage", "--session", session, "--network", "80002", "--format", "csv"], home: home, core: core)
        #expect(
            usage.standardOutput == "kind,to,token,limit,used,remaining\nnativeTransfer,\(receiver),,1000,900,100\n")
        let asRemote = try run(
            ["remote", "usage", "--session", session, "--network", "amoy", "--credential", credential], home: home,
            core: core)
        let table = OperatorEndToEndTests.lines(asRemote.standardOutput)
        #expect(table.count == 2 && table[0].hasPrefix("KIND ") && table[1].hasSuffix("1000   900   100"), "\(table)")

        // Sessions of the remote credential.
        let sessions = try jsonArray(
            try run(["remote", "sessions", "--credential", credential, "--format", "json"], home: home, core: core))
        #expect(sessions.count == 1)
        #expect(sessions.first?["sessionId"] as? String == session)
        #expect(sessions.first?["walletId"] as? String == walletId)
        #expect(sessions.first?["chainId"] as? String == "80002")
        let sessionsTable = try run(["remote", "sessions", "--credential", credential], home: home, core: core)
        #expect(sessionsTable.standardOutput.contains("native to \(receiver) limit 1000"))

        // Access list: the CLI's own direct credential (is_caller) and the remote grant.
        let ownId = try #require(
            (try JSONSerialization.jsonObject(
                with: Data(contentsOf: home.appendingPathComponent("credential.json"))) as? [String: Any])?[
                    "credentialId"] as? String)
        let access = try jsonArray(try run(["access", "list", "--format", "json"], home: home, core: core))
        #expect(access.count == 2, "\(access)")
        let direct = try #require(access.first { $0["type"] as? String == "direct" })
        #expect(direct["credentialId"] as? String == ownId)
        #expect(direct["isCaller"] as? Bool == true)
        let remote = try #require(access.first { $0["type"] as? String == "remote" })
        #expect(remote["credentialId"] as? String == credential)
        #expect(remote["sessionId"] as? String == session)
        #expect(remote["appName"] as? String == "Trading Bot")
        #expect(remote["isCaller"] as? Bool == false)
        let grants = try #require(remote["grants"] as? [[String: Any]])
        #expect(grants.count == 1 && grants.first?["kind"] as? String == "nativeTransfer")
        let csv = try run(["access", "list", "--format", "csv", "--type", "remote"], home: home, core: core)
        let csvLines = OperatorEndToEndTests.lines(csv.standardOutput)
        #expect(csvLines.first == "credential_id,type,session_id,app_name,expires_at,is_caller,grants")
        #expect(csvLines.count == 2 && csvLines[1].hasPrefix("\(credential),remote,\(session),Trading Bot,"))
        #expect(csvLines.last?.hasSuffix(",false,native to \(receiver) limit 1000") == true, "\(csvLines)")

        // A second wallet and none active: the wallet must be named; the error lists the choices.
        let second = lastLine(try run(["wallet", "create", "--type", "solana"], home: home, core: core))
        let ambiguous = try run(["access", "list"], home: home, core: core, expect: 64)
        #expect(ambiguous.standardError.contains(walletId) && ambiguous.standardError.contains(second), "\(ambiguous)")
        _ = try run(["wallet", "use", walletId], home: home, core: core)
        #expect(try jsonArray(try run(["access", "list", "--format", "json"], home: home, core: core)).count == 2)

        // Revoke the remote session: spending within it is refused from then on.
        let revoked = try run(
            ["access", "revoke", "--credential", credential, "--session", session], home: home, core: core)
        #expect(revoked.standardOutput == "revoked session \(session) of \(credential)\n")
        let afterRevoke = try run(
            ["remote", "transfer", "--credential", credential, "--session", session, "--to", receiver, "--value", "1"],
            home: home, core: core, expect: 1)
        #expect(afterRevoke.standardError.hasPrefix("Error: the core refused the request: "), "\(afterRevoke)")
        #expect(try jsonArray(try run(["access", "list", "--format", "json"], home: home, core: core)).count == 1)

        // Revoke the CLI's own credential: it is signed out; the next command says so.
        let own = try run(["access", "revoke", "--credential", ownId, "--wallet", walletId], home: home, core: core)
        #expect(own.standardOutput == "revoked \(ownId)\nthat was the CLI's own credential: signed out\n")
        let next = try run(["access", "list"], home: home, core: core, expect: 1)
        #expect(next.standardError.hasPrefix("Error: not signed in: run 'walletops login"), "\(next)")
        try checkPrivate(home)
    }

    /// Nothing in the home is readable by group or other (the remote key file included).
    static func checkPrivate(_ home: URL) throws {
        let enumerator = try #require(FileManager.default.enumerator(at: home, includingPropertiesForKeys: nil))
        var count = 0
        for case let url as URL in enumerator {
            let mode = try #require(
                (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue)
            #expect(mode & 0o077 == 0, "\(url.path) is open to group/other")
            count += 1
        }
        #expect(count >= 3)
    }

    @Test func embeddedCore() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        _ = try Self.run(["core", "init"], home: scratch.home, core: nil)
        try Self.tour(home: scratch.home, core: nil)
    }

    @Test func servedCore() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        _ = try Self.run(["core", "init"], home: scratch.home, core: nil)
        let server = try ServedBinary(home: scratch.home, listen: "127.0.0.1:0")
        try Self.tour(home: scratch.home, core: server.baseURL)
        #expect(server.stop(signal: SIGTERM) == 0, "\(server.standardError)")
    }
}
