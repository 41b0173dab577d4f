import Foundation
import Jobs
import Testing

/// `walletops core trust-issuer --jwks-from-pem FILE --kid K`: the core trusts an app-owned issuer from the
/// public key of its PEM file (what the per-user mode of the jobs signs with), then a token that issuer
/// mints (``AppIssuer``) signs the subject in; another key is refused; nothing of the PEM is ever printed.
@Suite(.serialized) struct TrustIssuerFromPEMTests {
    /// `openssl` with `arguments`; its output is not a test result, only the files it writes.
    static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("openssl \(arguments) failed") }
    }

    static func walletops(_ arguments: [String], home: URL) throws -> CLIResult {
        try BuiltBinary.run(arguments + ["--home", home.path])
    }

    @Test(arguments: [["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], ["-algorithm", "RSA"]])
    func anAppIssuerTrustedFromItsPEMSignsItsUsersIn(_ algorithm: [String]) throws {
        let scratch = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let home = scratch.appendingPathComponent("home")
        let pem = scratch.appendingPathComponent("app.pem").path
        let other = scratch.appendingPathComponent("other.pem").path
        let publicPEM = scratch.appendingPathComponent("app.pub.pem").path
        try Self.openssl(["genpkey"] + algorithm + ["-out", pem])
        try Self.openssl(["genpkey"] + algorithm + ["-out", other])
        try Self.openssl(["pkey", "-in", pem, "-pubout", "-out", publicPEM])
        var outputs: [CLIResult] = []
        let initialized = try Self.walletops(["core", "init"], home: home)
        #expect(initialized.status == 0, "\(initialized)")

        let isRSA = algorithm.contains("RSA")
        let trusted = try Self.walletops(
            [
                "core", "trust-issuer", "--issuer", "https://app.example", "--audience", "app-users",
                "--jwks-from-pem", pem, "--kid", "app-1",
            ], home: home)
        outputs.append(trusted)
        #expect(trusted.status == 0, "\(trusted)")
        #expect(
            trusted.standardOutput
                == "trusted https://app.example (audience app-users, 1 keys) for prj_local\n"
                + (isRSA ? "  kid app-1 RSA RS256\n" : "  kid app-1 EC ES256\n"))

        // A token the app mints with its key signs the subject in.
        let issuer = try AppIssuer(issuer: "https://app.example", audience: "app-users", keyID: "app-1", pemFile: pem)
        #expect(issuer.algorithm == (isRSA ? .rs256 : .es256))
        let token = scratch.appendingPathComponent("token.jwt")
        try Data(try issuer.idToken(subject: "user-7", now: Int64(Date().timeIntervalSince1970)).utf8).write(to: token)
        let login = try Self.walletops(["login", "--id-token-file", token.path], home: home)
        outputs.append(login)
        #expect(login.status == 0, "\(login)")
        #expect(login.standardOutput.hasPrefix("signed in as user-7\nissuer: https://app.example\n"), "\(login)")

        // Another key under the same kid: the signature does not verify.
        let impostor = try AppIssuer(
            issuer: "https://app.example", audience: "app-users", keyID: "app-1", pemFile: other)
        try Data(try impostor.idToken(subject: "user-8", now: Int64(Date().timeIntervalSince1970)).utf8).write(
            to: token)
        let refused = try Self.walletops(["login", "--id-token-file", token.path], home: home)
        outputs.append(refused)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.standardError.hasPrefix("Error: the core refused the request: "), "\(refused)")

        // The public half alone is enough, under another audience.
        let fromPublic = try Self.walletops(
            [
                "core", "trust-issuer", "--issuer", "https://app.example", "--audience", "app-2",
                "--jwks-from-pem", publicPEM, "--kid", "app-1",
            ], home: home)
        outputs.append(fromPublic)
        #expect(fromPublic.status == 0, "\(fromPublic)")

        // Usage: exactly one source of keys, and --kid with the PEM.
        for arguments in [
            ["--jwks-from-pem", pem], ["--jwks-from-pem", pem, "--kid", "k", "--jwks", pem], ["--kid", "k"],
        ] {
            let bad = try Self.walletops(
                ["core", "trust-issuer", "--issuer", "https://app.example", "--audience", "a"] + arguments, home: home)
            outputs.append(bad)
            #expect(bad.status == 64, "\(arguments): \(bad)")
        }
        // A file that is not a key: bad data, named by its path.
        let garbage = scratch.appendingPathComponent("garbage.pem")
        let pemText = try String(contentsOfFile: pem, encoding: .utf8)
        try Data(pemText.replacingOccurrences(of: "PRIVATE KEY", with: "PRIVATE THING").utf8).write(to: garbage)
        let notKey = try Self.walletops(
            [
                "core", "trust-issuer", "--issuer", "https://app.example", "--audience", "a", "--jwks-from-pem",
                garbage.path, "--kid", "k",
            ], home: home)
        outputs.append(notKey)
        #expect(notKey.status == 65, "\(notKey)")
        #expect(notKey.standardError.contains(garbage.path))

        // Nothing of the private key file in any output nor in the home.
        let secretLines = pemText.split(separator: "\n").filter { !$0.hasPrefix("-----") && $0.count >= 16 }
        #expect(secretLines.count >= 2)
        var files = 0
        let enumerator = FileManager.default.enumerator(at: home, includingPropertiesForKeys: nil)
        var texts = outputs.map { $0.standardOutput + $0.standardError }
        while let url = enumerator?.nextObject() as? URL {
            if let data = try? Data(contentsOf: url) {
                texts.append(String(decoding: data, as: UTF8.self))
                files += 1
            }
        }
        #expect(files > 2)
        for text in texts {
            for line in secretLines where text.contains(line) { Issue.record("a line of the PEM key was shown") }
        }
    }
}
