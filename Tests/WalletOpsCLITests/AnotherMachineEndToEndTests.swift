import Foundation
import Jobs
import TestSupport
import Testing
import WalletCrypto

/// An operator on another machine: a client home with no core signs in to `walletops core serve` with
/// the project's publishable key and an emailed code, creates wallets, imports keys through the attested
/// transport with a copied attestation root, and runs the import job over HTTP (docs/cli.md "From
/// another machine").
@Suite(.serialized) struct AnotherMachineEndToEndTests {
    /// Runs `walletops core init` in `home` and returns the publishable key it prints.
    static func initCore(in home: URL) throws -> String {
        let initialized = try OperatorEndToEndTests.run(["core", "init"], home: home)
        return try #require(
            OperatorEndToEndTests.lines(initialized.standardOutput).first { $0.hasPrefix("publishable_key: ") }?
                .dropFirst("publishable_key: ".count).description)
    }

    /// `walletops login --otp --code-stdin` against the served core: the code is written to the
    /// command's standard input once the core has put it in its (development) outbox, as an operator
    /// would type it from the email.
    static func loginWithEmailCode(
        _ arguments: [String], serverHome: URL, email: String, environment: [String: String] = [:]
    ) throws -> (status: Int32, standardOutput: String, standardError: String) {
        let outbox = serverHome.appendingPathComponent("outbox").appendingPathComponent(email + ".txt")
        let before = (try? String(contentsOf: outbox, encoding: .utf8)) ?? ""
        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment.removeValue(forKey: "WALLETOPS_HOME")
        childEnvironment.removeValue(forKey: "WALLETOPS_PUBLISHABLE_KEY")
        for (name, value) in environment { childEnvironment[name] = value }
        let child = try PipedProcess(try BuiltBinary.url(), arguments: arguments, environment: childEnvironment)
        let process = child.process
        // Wait for a new code line (the command committed its verifier), then type the code.
        var code: String?
        for _ in 0..<200 where code == nil && process.isRunning {
            let text = (try? String(contentsOf: outbox, encoding: .utf8)) ?? ""
            if text.count > before.count, let line = text.dropFirst(before.count).split(separator: "\n").last {
                code = line.split(separator: " ").first?.split(separator: "=").last.map(String.init)
            } else {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        child.write((code ?? "") + "\n")
        let finished = try child.finish()
        return (finished.status, finished.standardOutput, finished.standardError)
    }

    @Test func aClientHomeWithoutACoreSignsInCreatesAndImports() throws {
        let scratch = try OperatorEndToEndTests.Scratch()
        defer { scratch.remove() }
        let serverHome = scratch.home
        let key = try Self.initCore(in: serverHome)
        // The operator copies the attestation root from the server's home; the client never fetches it.
        let root = try OperatorEndToEndTests.run(["core", "attestation-root"], home: serverHome).standardOutput
        let rootFile = scratch.file("copied-root.pem")
        try Data(root.utf8).write(to: rootFile)
        let server = try ServedBinary(home: serverHome, listen: "127.0.0.1:0")
        defer { _ = server.stop() }
        let core = server.baseURL!
        let client = scratch.file("client")

        // Without the key, a home without a core cannot sign in; a malformed key is a usage error.
        let noKey = try OperatorEndToEndTests.run(
            ["login", "--otp", "--email", "op@example.com", "--code-stdin"], home: client, core: core, expect: 1)
        #expect(noKey.standardError.contains("has no core"), "\(noKey)")
        let badKey = try OperatorEndToEndTests.run(
            ["login", "--otp", "--email", "op@example.com", "--code-stdin", "--publishable-key", "pk_nope"],
            home: client, core: core, expect: 64)
        #expect(badKey.standardError.contains("Invalid publishableKey."), "\(badKey)")
        let dev = try OperatorEndToEndTests.run(
            ["login", "--dev", "--email", "op@example.com", "--publishable-key", key], home: client, core: core,
            expect: 64)
        #expect(dev.standardError.contains("--dev needs the home's core"), "\(dev)")

        // Signed in with the key from the environment and the emailed code typed on standard input.
        let login = try Self.loginWithEmailCode(
            [
                "login", "--otp", "--email", "op@example.com", "--code-stdin", "--home", client.path, "--core",
                core.absoluteString,
            ], serverHome: serverHome, email: "op@example.com", environment: ["WALLETOPS_PUBLISHABLE_KEY": key])
        #expect(login.status == 0, "\(login)")
        #expect(login.standardOutput.hasPrefix("signed in as op@example.com"), "\(login)")
        #expect(login.standardOutput.contains("\ncore: \(core.absoluteString)\n"))
        #expect(!FileManager.default.fileExists(atPath: client.appendingPathComponent("core.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: client.appendingPathComponent("credential.json").path))

        let ethereum = try OperatorEndToEndTests.run(["wallet", "create"], home: client, core: core)
        let solana = try OperatorEndToEndTests.run(["wallet", "create", "--type", "solana"], home: client, core: core)
        #expect(OperatorEndToEndTests.lines(ethereum.standardOutput).last?.hasPrefix("wal_") == true)
        #expect(OperatorEndToEndTests.lines(solana.standardOutput).last?.hasPrefix("wal_") == true)

        // Import: never pinned from the server; the copied root verifies, another core's root does not.
        let secret = SecretBytes.random(count: 32)
        let address = try Secp256k1.PrivateKey(secret).publicKey.ethereumAddress.lowercased
        let keyFile = scratch.file("key.hex")
        try Data(Base16.encode(secret.unsafeCopy()).utf8).write(to: keyFile)
        let unpinned = try OperatorEndToEndTests.run(
            ["wallet", "import", "--type", "ethereum", "--key-file", keyFile.path], home: client, core: core,
            expect: 1)
        #expect(unpinned.standardError.contains("no attestation root to pin"), "\(unpinned)")
        let otherHome = scratch.file("other")
        _ = try OperatorEndToEndTests.run(["core", "init"], home: otherHome)
        let otherRoot = scratch.file("other-root.pem")
        try Data(
            try OperatorEndToEndTests.run(["core", "attestation-root"], home: otherHome).standardOutput.utf8
        ).write(to: otherRoot)
        let wrong = try OperatorEndToEndTests.run(
            [
                "wallet", "import", "--type", "ethereum", "--key-file", keyFile.path, "--attestation-root",
                otherRoot.path,
            ],
            home: client, core: core, expect: 1)
        #expect(wrong.standardError.contains("did not verify"), "\(wrong)")
        let imported = try OperatorEndToEndTests.run(
            [
                "wallet", "import", "--type", "ethereum", "--key-file", keyFile.path, "--attestation-root",
                rootFile.path,
            ],
            home: client, core: core)
        #expect(imported.standardOutput.lowercased().contains(address), "\(imported)")

        // The import job from the same home, over HTTP, with the copied root.
        var keys: [String] = []
        var addresses: [String] = []
        for _ in 0..<3 {
            let secret = SecretBytes.random(count: 32)
            keys.append(Base16.encode(secret.unsafeCopy()))
            addresses.append(try Secp256k1.PrivateKey(secret).publicKey.ethereumAddress.lowercased)
        }
        let csv = scratch.file("keys.csv")
        try Data(("private_key\n" + keys.joined(separator: "\n") + "\n").utf8).write(to: csv)
        let job = try BuiltBinary.run(
            [
                "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/import-keys.yaml").path, "--home",
                client.path, "--core", core.absoluteString, "--fresh", "--var", "input=\(csv.path)", "--var",
                "format=hex-csv", "--var", "attestation_root=\(rootFile.path)", "--var",
                "output=\(scratch.file("imported.csv").path)", "--var", "rejects=\(scratch.file("rejects.csv").path)",
            ], directory: scratch.folder)
        #expect(job.status == 0, "\(job)")
        let rows = try String(contentsOf: scratch.file("imported.csv"), encoding: .utf8).lowercased()
        for address in addresses { #expect(rows.contains(address), "\(rows)") }
        // Every wallet is in the served core's account: the list shows 2 made + 1 + 3 imported.
        let list = try OperatorEndToEndTests.run(["wallet", "list", "--format", "csv"], home: client, core: core)
        #expect(OperatorEndToEndTests.lines(list.standardOutput).count == 1 + 6, "\(list)")
        for secretText in keys + [Base16.encode(secret.unsafeCopy())] {
            #expect(!job.standardOutput.contains(secretText) && !job.standardError.contains(secretText))
            #expect(!rows.contains(secretText))
        }
    }

    @Test func aClientHomeSignsInWithAnIDTokenAndTheKeyOption() throws {
        let scratch = try OperatorEndToEndTests.Scratch()
        defer { scratch.remove() }
        let serverHome = scratch.home
        let key = try Self.initCore(in: serverHome)
        let pem = scratch.file("app.pem").path
        try TrustIssuerFromPEMTests.openssl([
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", pem,
        ])
        _ = try OperatorEndToEndTests.run(
            [
                "core", "trust-issuer", "--issuer", "https://app.example", "--audience", "ops", "--jwks-from-pem",
                pem, "--kid", "k1",
            ], home: serverHome)
        let server = try ServedBinary(home: serverHome, listen: "127.0.0.1:0")
        defer { _ = server.stop() }
        let issuer = try AppIssuer(issuer: "https://app.example", audience: "ops", keyID: "k1", pemFile: pem)
        let token = scratch.file("token.jwt")
        try Data(try issuer.idToken(subject: "cron-1", now: Int64(Date().timeIntervalSince1970)).utf8).write(to: token)
        let client = scratch.file("cron-host")
        let login = try OperatorEndToEndTests.run(
            ["login", "--id-token-file", token.path, "--publishable-key", key], home: client, core: server.baseURL)
        #expect(login.standardOutput.hasPrefix("signed in as cron-1\n"), "\(login)")
        #expect(!FileManager.default.fileExists(atPath: client.appendingPathComponent("core.sqlite").path))
        let created = try OperatorEndToEndTests.run(["wallet", "create"], home: client, core: server.baseURL)
        let id = try #require(OperatorEndToEndTests.lines(created.standardOutput).last)
        let list = try OperatorEndToEndTests.run(
            ["wallet", "list", "--format", "csv"], home: client, core: server.baseURL)
        #expect(list.standardOutput.contains(id))
        // The key option needs a served core.
        let embedded = try OperatorEndToEndTests.run(
            ["login", "--id-token-file", token.path, "--publishable-key", key], home: client, expect: 64)
        #expect(embedded.standardError.contains("give --core URL"), "\(embedded)")
    }
}
