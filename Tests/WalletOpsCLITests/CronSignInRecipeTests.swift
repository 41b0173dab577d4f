import Foundation
import TestSupport
import Testing
import WalletCrypto

/// docs/jobs.md "Signing in without a person", followed literally: its three blocks are read from the
/// document and run as written (paths, the core's URL and the publishable key replaced), the crontab line
/// through `/bin/sh` with the crontab's variables as its whole environment, as cron runs it, for two nights
/// against a real `core serve`.
@Suite(.serialized) struct CronSignInRecipeTests {
    /// The fenced blocks of the section titled `title` in `markdown`, their indentation removed.
    static func blocks(of title: String, in markdown: String) throws -> [String] {
        let start = try #require(markdown.range(of: "\n### \(title)\n"), "no section '\(title)'")
        let rest = markdown[start.upperBound...]
        let section = rest.range(of: "\n#").map { rest[..<$0.lowerBound] } ?? rest
        var blocks: [String] = []
        var current: [String]?
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") {
                if let lines = current {
                    blocks.append(lines.joined(separator: "\n"))
                    current = nil
                } else {
                    current = []
                }
            } else if current != nil {
                current!.append(String(trimmed))
            }
        }
        return blocks
    }

    /// `/bin/sh -c text` in `directory` with exactly `environment` (cron gives a job little else).
    static func shell(_ text: String, in directory: URL, environment: [String: String]) throws -> CLIResult {
        try BuiltBinary.run(
            ["-c", text], directory: directory, executable: "/bin/sh", replacingEnvironment: environment)
    }

    /// The private scalar of an EC P-256 PKCS#8 PEM (in its `ECPrivateKey`: version 1, then a 32-byte
    /// octet string).
    static func privateScalar(pem: String) throws -> [UInt8] {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = try #require(Data(base64Encoded: body).map { [UInt8]($0) })
        let marker: [UInt8] = [0x02, 0x01, 0x01, 0x04, 0x20]
        let at = try #require(
            (0...(der.count - marker.count - 32)).first { Array(der[$0..<($0 + marker.count)]) == marker })
        return Array(der[(at + marker.count)..<(at + marker.count + 32)])
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
    func twoNightsSignInWithTheHostsIssuerKeyAndMailNothing() throws {
        let scratch = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let server = scratch.appendingPathComponent("server")
        let cron = scratch.appendingPathComponent("cron")
        let serverSide = scratch.appendingPathComponent("server-side")
        try FileManager.default.createDirectory(at: serverSide, withIntermediateDirectories: true)

        // The server (docs/cli.md "From another machine"): a core, served.
        let port = try ServedBinary.freePort()
        let initialized = try BuiltBinary.run(
            ["core", "init", "--home", server.path, "--issuer", "http://127.0.0.1:\(port)"])
        #expect(initialized.status == 0, "\(initialized)")
        let key = try #require(
            initialized.standardOutput.split(separator: "\n").first { $0.hasPrefix("publishable_key: ") }.map {
                String($0.dropFirst("publishable_key: ".count))
            })
        let served = try ServedBinary(home: server, listen: "127.0.0.1:\(port)")
        defer { _ = served.stop() }
        let core =
            served.baseURL.absoluteString.hasSuffix("/")
            ? String(served.baseURL.absoluteString.dropLast()) : served.baseURL.absoluteString

        let document = try String(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/jobs.md"), encoding: .utf8)
        let replacements = [
            ("/srv/cron", cron.path), ("/srv/walletops", server.path), ("https://wallets.example.com", core),
            ("pk_live_sdbx_...", key),
            ("/usr/local/share/walletops/jobs", Fixtures.repositoryRoot.appendingPathComponent("jobs").path),
        ]
        let blocks = try Self.blocks(of: "Signing in without a person", in: document).map { block in
            replacements.reduce(block) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
        }
        try #require(blocks.count == 3, "\(blocks)")
        let binaries = try BuiltBinary.url().deletingLastPathComponent().path
        let path = "\(binaries):/usr/local/bin:/usr/bin:/bin"
        let base = ["PATH": path, "HOME": scratch.path, "SHELL": "/bin/sh"]

        // 1. On the cron host: the key and its public half.
        let made = try Self.shell(blocks[0], in: scratch, environment: base)
        #expect(made.status == 0, "\(made)")
        let pem = try String(contentsOf: cron.appendingPathComponent("issuer.pem"), encoding: .utf8)
        let mode =
            try FileManager.default.attributesOfItem(atPath: cron.appendingPathComponent("issuer.pem").path)[
                .posixPermissions] as? Int
        #expect(mode == 0o600, "umask 077: the key is the owner's only")
        // 2. On the server: the public half copied there, trusted.
        try FileManager.default.copyItem(
            at: cron.appendingPathComponent("issuer.pub.pem"), to: serverSide.appendingPathComponent("issuer.pub.pem"))
        let trusted = try Self.shell(blocks[1], in: serverSide, environment: base)
        #expect(trusted.status == 0, "\(trusted)")

        // 3. The crontab: its variables are the job's environment; the line after the five time fields is
        // the command, with cron's `\%` unescaped.
        var environment = base
        var command = ""
        for line in blocks[2].split(separator: "\n") where !line.hasPrefix("#") {
            if let equals = line.firstIndex(of: "="), !line.prefix(upTo: equals).contains(" ") {
                environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
            } else {
                let fields = line.split(separator: " ", maxSplits: 5)
                try #require(fields.count == 6, "\(line)")
                command = fields[5].replacingOccurrences(of: "\\%", with: "%")
            }
        }
        #expect(environment["WALLETOPS_CORE"] == core && environment["WALLETOPS_PUBLISHABLE_KEY"] == key)
        let home = URL(fileURLWithPath: try #require(environment["WALLETOPS_HOME"]))

        var outputs: [CLIResult] = [made, trusted]
        let first = try Self.shell(command, in: scratch, environment: environment)
        outputs.append(first)
        #expect(first.status == 0, "night 1: \(first)")
        #expect(first.standardOutput.isEmpty && first.standardError.isEmpty, "cron mails nothing: \(first)")
        let credential = try String(contentsOf: home.appendingPathComponent("credential.json"), encoding: .utf8)
        // The account of the subject, used between the nights.
        let wallet = try BuiltBinary.run(["wallet", "create", "--home", home.path, "--core", core])
        #expect(wallet.status == 0, "\(wallet)")
        let walletID = try #require(wallet.standardOutput.split(separator: "\n").last.map(String.init))

        let second = try Self.shell(command, in: scratch, environment: environment)
        outputs.append(second)
        #expect(second.status == 0, "night 2: \(second)")
        #expect(second.standardOutput.isEmpty && second.standardError.isEmpty, "cron mails nothing: \(second)")
        let renewed = try String(contentsOf: home.appendingPathComponent("credential.json"), encoding: .utf8)
        #expect(renewed != credential, "a fresh credential each night")
        let list = try BuiltBinary.run(["wallet", "list", "--home", home.path, "--core", core, "--format", "csv"])
        #expect(list.standardOutput.contains(walletID), "the same subject, the same account: \(list)")

        let log = try String(contentsOf: cron.appendingPathComponent("walletops.log"), encoding: .utf8)
        #expect(log.components(separatedBy: "signed in as nightly-sweep").count == 3, "\(log)")
        let ends = log.split(separator: "\n").filter { $0.contains(#""event":"run-end""#) }
        #expect(ends.count == 2 && ends.allSatisfy { $0.contains(#""status":"completed""#) }, "\(log)")

        // The issuer's key: in no output, and in no file of the home or the server (only in issuer.pem).
        let scalar = try Self.privateScalar(pem: pem)
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map { Array($0.utf8) }
        for output in outputs + [wallet, list] {
            let text = Array((output.standardOutput + output.standardError).utf8)
            #expect(
                !JobsEndToEndTests.contains(text, scalar) && !body.contains { JobsEndToEndTests.contains(text, $0) })
        }
        var scanned = 0
        for root in [home, server, cron] {
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let url = files?.nextObject() as? URL {
                guard url.lastPathComponent != "issuer.pem", let data = FileManager.default.contents(atPath: url.path)
                else { continue }
                scanned += 1
                let bytes = [UInt8](data)
                #expect(
                    !JobsEndToEndTests.contains(bytes, scalar)
                        && !body.contains { JobsEndToEndTests.contains(bytes, $0) },
                    "the issuer key is in \(url.path)")
            }
        }
        #expect(scanned > 5, "scanned \(scanned) files")
    }
}
