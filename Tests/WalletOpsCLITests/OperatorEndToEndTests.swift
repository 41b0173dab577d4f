import Foundation
import TestSupport
import Testing
import WalletCrypto

#if canImport(Glibc)
import Glibc
#endif

/// The operator's commands through the built binary: against the embedded core of a temporary home, and
/// against `walletops core serve` on a loopback port.
@Suite(.serialized) struct OperatorEndToEndTests {
    /// A temporary folder holding the home `h` (so the home itself is created by `core init`).
    struct Scratch {
        let folder: URL
        var home: URL { folder.appendingPathComponent("h") }
        init() throws { folder = try makeTemporaryDirectory() }
        func remove() { try? FileManager.default.removeItem(at: folder) }
        func file(_ name: String) -> URL { folder.appendingPathComponent(name) }
    }

    static func run(_ arguments: [String], home: URL, core: URL? = nil, expect status: Int32 = 0) throws -> CLIResult {
        var full = arguments + ["--home", home.path]
        if let core { full += ["--core", core.absoluteString] }
        let result = try BuiltBinary.run(full)
        #expect(result.status == status, "walletops \(arguments.joined(separator: " "))\n\(result)")
        return result
    }

    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    /// Replaces the token's payload with `edit(payload)`, keeping the header and signature.
    static func tamper(_ token: String, _ edit: (inout [String: Any]) -> Void) throws -> String {
        let parts = token.split(separator: ".").map(String.init)
        var payload = try #require(
            try JSONSerialization.jsonObject(with: Data(try Base64URL.decode(parts[1]))) as? [String: Any])
        edit(&payload)
        let bytes = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        return [parts[0], Base64URL.encode([UInt8](bytes)), parts[2]].joined(separator: ".")
    }

    /// The same claims under `{"alg":"none"}` and an empty signature.
    static func unsigned(_ token: String) -> String {
        let parts = token.split(separator: ".").map(String.init)
        return [Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)), parts[1], ""].joined(separator: ".")
    }

    /// Sign-in, wallets in three formats, the active wallet, a token verified and refused, and logout,
    /// against the core `core` names (nil: the home's embedded core). Returns a fresh token and the JWKS.
    static func tour(home: URL, core: URL?, issuer: String, scratch: Scratch) throws -> (token: String, jwks: String) {
        // Not signed in yet: refused before any request.
        let early = try run(["wallet", "list"], home: home, core: core, expect: 1)
        #expect(early.standardError.hasPrefix("Error: not signed in: run 'walletops login"), "\(early)")

        let login = try run(
            ["login", "--dev", "--email", "Ops@Example.com", "--lifetime", "3600"], home: home, core: core)
        #expect(login.standardOutput.hasPrefix("signed in as ops@example.com (dev|ops@example.com)\n"))
        #expect(login.standardOutput.contains("\nexpires: "))
        #expect(login.standardOutput.contains("\ncore: \(core?.absoluteString ?? "embedded")\n"))
        let credentialText = try String(contentsOf: home.appendingPathComponent("credential.json"), encoding: .utf8)
        let credential = try #require(
            try JSONSerialization.jsonObject(with: Data(credentialText.utf8)) as? [String: Any])
        let privateKey = try #require(credential["privateKey"] as? String)
        #expect(!login.standardOutput.contains(privateKey) && !login.standardError.contains(privateKey))

        let ethereum = try run(["wallet", "create"], home: home, core: core)
        let ethereumId = try #require(lines(ethereum.standardOutput).last)
        #expect(ethereumId.hasPrefix("wal_"))
        let solana = try run(
            ["wallet", "create", "--type", "solana", "--reference", "desk, \"A\""], home: home, core: core)
        let solanaId = try #require(lines(solana.standardOutput).last)
        #expect(solanaId.hasPrefix("wal_") && solanaId != ethereumId)

        // JSON: every field; then CSV and the table must say the same.
        let json = try run(["wallet", "list", "--format", "json"], home: home, core: core)
        let wallets = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(wallets.map { $0["id"] as? String } == [ethereumId, solanaId])
        #expect(wallets.map { $0["type"] as? String } == ["ethereum", "solana"])
        #expect(wallets.map { $0["keyOrigin"] as? String } == ["enclave", "enclave"])
        #expect(wallets[0]["reference"] is NSNull)
        #expect(wallets[1]["reference"] as? String == "desk, \"A\"")
        let addresses = wallets.map { $0["address"] as? String ?? "" }
        #expect(addresses[0].hasPrefix("0x") && addresses[0].count == 42)
        #expect(throws: Never.self) { try EthereumAddress(addresses[0], strict: true) }
        #expect((32...44).contains(addresses[1].count))

        let csv = try run(["wallet", "list", "--format", "csv"], home: home, core: core)
        #expect(
            csv.standardOutput
                == "id,type,address,reference,key_origin\n"
                + "\(ethereumId),ethereum,\(addresses[0]),,enclave\n"
                + "\(solanaId),solana,\(addresses[1]),\"desk, \"\"A\"\"\",enclave\n")

        let table = lines(try run(["wallet", "list"], home: home, core: core).standardOutput)
        #expect(table.count == 3)
        #expect(table[0].hasPrefix("ID "))
        for column in ["TYPE", "ADDRESS", "REFERENCE", "KEY_ORIGIN"] {
            let offset = try #require(table[0].range(of: column)).lowerBound.utf16Offset(in: table[0])
            for row in table.dropFirst() {
                let index = row.index(row.startIndex, offsetBy: offset)
                #expect(row[row.index(before: index)] == " " && row[index] != " " || column == "REFERENCE", "\(row)")
            }
        }
        #expect(table[1].hasPrefix(ethereumId + "  ethereum") && table[2].hasPrefix(solanaId + "  solana"))

        // token issue needs a wallet: none chosen yet.
        let noWallet = try run(["token", "issue"], home: home, core: core, expect: 1)
        #expect(noWallet.standardError.contains("wallet use"))
        let use = try run(["wallet", "use", ethereumId], home: home, core: core)
        #expect(use.standardOutput.hasPrefix("active wallet: \(ethereumId)"))
        let issued = try run(
            ["token", "issue", "--ttl", "300", "--claim", "tier=3", "--claim", "beta=true", "--claim", "note=hi"],
            home: home, core: core)
        let token = issued.standardOutput.trimmingCharacters(in: .newlines)
        #expect(issued.standardOutput == token + "\n" && token.split(separator: ".").count == 3)

        let jwks = try run(["jwks"], home: home, core: core).standardOutput
        let jwksFile = scratch.file("jwks.json")
        try Data(jwks.utf8).write(to: jwksFile)
        let verify = ["token", "verify", "--issuer", issuer, "--audience", "prj_local", "--jwks", jwksFile.path]
        let verified = try BuiltBinary.run(verify + [token])
        #expect(verified.status == 0, "\(verified)")
        let claims = try #require(
            try JSONSerialization.jsonObject(with: Data(verified.standardOutput.utf8)) as? [String: Any])
        #expect(claims["sub"] as? String == ethereumId)
        #expect(claims["aud"] as? String == "prj_local")
        #expect(claims["iss"] as? String == issuer)
        #expect(claims["wallet_address"] as? String == addresses[0])
        #expect(claims["wallet_type"] as? String == "ethereum")
        #expect(claims["email"] as? String == "ops@example.com")
        #expect((claims["tier"] as? NSNumber)?.intValue == 3 && !(claims["tier"] is String))
        #expect(claims["beta"] as? Bool == true)
        #expect(claims["note"] as? String == "hi")
        let exp = try #require((claims["exp"] as? NSNumber)?.int64Value)
        let iat = try #require((claims["iat"] as? NSNumber)?.int64Value)
        #expect(exp - iat == 300)

        // A token for the other wallet, named explicitly.
        let other = try run(["token", "issue", "--wallet", solanaId], home: home, core: core)
        let otherClaims = try BuiltBinary.run(verify + [other.standardOutput.trimmingCharacters(in: .newlines)])
        #expect(otherClaims.status == 0 && otherClaims.standardOutput.contains("\"sub\":\"\(solanaId)\""))

        // Refused: tampered payload, wrong audience, wrong issuer, alg none.
        let refusals: [(String, [String])] = [
            ("tampered", verify + [try tamper(token) { $0["sub"] = solanaId }]),
            (
                "wrong audience",
                ["token", "verify", "--issuer", issuer, "--audience", "prj_x", "--jwks", jwksFile.path, token]
            ),
            (
                "wrong issuer",
                [
                    "token", "verify", "--issuer", issuer + "/x", "--audience", "prj_local", "--jwks", jwksFile.path,
                    token,
                ]
            ),
            ("alg none", verify + [unsigned(token)]),
        ]
        for (name, arguments) in refusals {
            let refused = try BuiltBinary.run(arguments)
            #expect(refused.status == 1, "\(name): \(refused)")
            #expect(refused.standardOutput == "", "\(name)")
            #expect(refused.standardError.hasPrefix("Error: invalid token: "), "\(name): \(refused)")
        }

        try checkModes(home)
        return (token, jwks)
    }

    /// Nothing in the home is readable by group or other; the credential file is 0600 and the folder 0700.
    static func checkModes(_ home: URL) throws {
        func mode(_ url: URL) throws -> Int {
            try #require(
                (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue)
        }
        #expect(try mode(home) == 0o700)
        #expect(try mode(home.appendingPathComponent("credential.json")) == 0o600)
        let enumerator = try #require(FileManager.default.enumerator(at: home, includingPropertiesForKeys: nil))
        var count = 0
        for case let url as URL in enumerator {
            #expect(try mode(url) & 0o077 == 0, "\(url.lastPathComponent) is open to group/other")
            count += 1
        }
        #expect(count >= 3)  // core.sqlite, kek.key, credential.json at least
    }

    static func logout(home: URL, core: URL?) throws {
        #expect(try run(["logout"], home: home, core: core).standardOutput == "signed out\n")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("credential.json").path))
        let after = try run(["wallet", "list"], home: home, core: core, expect: 1)
        #expect(after.standardOutput == "")
        #expect(after.standardError.hasPrefix("Error: not signed in: run 'walletops login"), "\(after)")
        #expect(try run(["logout"], home: home, core: core).standardOutput == "not signed in\n")
    }

    @Test func embeddedCore() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let home = scratch.home
        let first = try Self.run(["core", "init"], home: home)
        #expect(first.standardError == "")
        #expect(Self.lines(first.standardOutput).count == 4)
        let publishable = try #require(Self.lines(first.standardOutput).first)
        #expect(publishable.hasPrefix("publishable_key: pk_local_sdbx_local_"))
        #expect(Self.lines(first.standardOutput)[1] == "project_id: prj_local")
        let second = try Self.run(["core", "init"], home: home)
        #expect(second.standardOutput == first.standardOutput)
        #expect(second.standardError.contains("already existed"))

        _ = try Self.tour(home: home, core: nil, issuer: "http://127.0.0.1:8787", scratch: scratch)

        // A rotation keeps the previous key published: the earlier JWKS kid is still there.
        let before = try Self.run(["jwks"], home: home).standardOutput
        let kid = try Self.run(["core", "rotate-signing-key"], home: home).standardOutput.trimmingCharacters(
            in: .newlines)
        #expect(!kid.isEmpty && !before.contains(kid))
        let after = try Self.run(["jwks"], home: home).standardOutput
        #expect(after.contains(kid))
        let keys = try #require(
            (try JSONSerialization.jsonObject(with: Data(after.utf8)) as? [String: Any])?["keys"] as? [[String: Any]])
        #expect(keys.count == 2)

        try Self.logout(home: home, core: nil)
        // Commands that change the home's core refuse --core.
        let refused = try BuiltBinary.run(["core", "init", "--home", home.path, "--core", "http://127.0.0.1:1"])
        #expect(refused.status == 64, "\(refused)")
    }

    @Test func servedCoreAndPyJWTOracle() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let home = scratch.home
        let port = try ServedBinary.freePort()
        let issuer = "http://127.0.0.1:\(port)"
        let initialized = try Self.run(["core", "init", "--issuer", issuer], home: home)
        #expect(initialized.standardOutput.contains("\nissuer: \(issuer)\n"))
        let server = try ServedBinary(home: home, listen: "127.0.0.1:\(port)")
        #expect(server.baseURL.absoluteString == issuer)

        let (token, jwks) = try Self.tour(home: home, core: server.baseURL, issuer: issuer, scratch: scratch)
        // The served JWKS is the home's.
        #expect(try Self.run(["jwks"], home: home).standardOutput == jwks)

        // Without --jwks, token verify fetches <issuer>/.well-known/jwks.json.
        let fetched = try BuiltBinary.run(["token", "verify", token, "--issuer", issuer, "--audience", "prj_local"])
        #expect(fetched.status == 0, "\(fetched)")
        #expect(fetched.standardOutput.contains("\"aud\":\"prj_local\""))

        // PyJWT, with the keys fetched over HTTP from the server, accepts the token and refuses the rest.
        let script = """
            import json, sys, urllib.request, jwt
            issuer = sys.argv[1]
            keys = json.load(urllib.request.urlopen(issuer + "/.well-known/jwks.json"))["keys"]
            config = json.load(urllib.request.urlopen(issuer + "/.well-known/openid-configuration"))
            assert config["jwks_uri"] == issuer + "/.well-known/jwks.json", config
            def check(token, audience):
                try:
                    kid = jwt.get_unverified_header(token).get("kid")
                    key = jwt.PyJWK(next(k for k in keys if k["kid"] == kid))
                    claims = jwt.decode(token, key.key, algorithms=["ES256"], audience=audience, issuer=issuer)
                    return "ok " + claims["sub"]
                except Exception as error:
                    return "refused " + type(error).__name__
            for line in sys.stdin:
                token, audience = line.split()
                print(check(token, audience))
            """
        let sub = try #require(try JWT.decodeUnverified(token).subject)
        let cases: [(String, String, String)] = [
            ("genuine", token, "prj_local"),
            ("tampered", try Self.tamper(token) { $0["sub"] = "wal_someoneelse" }, "prj_local"),
            ("wrong audience", token, "prj_other"),
            ("alg none", Self.unsigned(token), "prj_local"),
        ]
        let answers = Self.lines(
            try PythonOracle.run(
                script, stdin: cases.map { "\($0.1) \($0.2)\n" }.joined(), arguments: [issuer]))
        var tally = VectorTally("PyJWT against core serve's JWKS")
        #expect(answers.count == cases.count)
        for ((name, candidate, audience), answer) in zip(cases, answers) {
            let ours = try BuiltBinary.run(
                ["token", "verify", candidate, "--issuer", issuer, "--audience", audience])
            if name == "genuine" {
                #expect(answer == "ok \(sub)", "\(name)")
                #expect(ours.status == 0, "\(name): \(ours)")
            } else {
                #expect(answer.hasPrefix("refused "), "\(name): PyJWT said \(answer)")
                #expect(ours.status == 1, "\(name): \(ours)")
            }
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 4)

        try Self.logout(home: home, core: server.baseURL)
        let status = server.stop(signal: SIGTERM)
        #expect(status == 0, "\(server.standardError)")
        #expect(server.standardError.contains("database closed"))
        // The last connection closed: SQLite removed the write-ahead log.
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("core.sqlite-wal").path))
        // Stopped: the core is unreachable now (exit 75).
        let gone = try Self.run(["jwks"], home: home, core: server.baseURL, expect: 75)
        #expect(gone.standardError.hasPrefix("Error: "))
    }

    @Test func servePicksAPortAndStopsOnSIGINT() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        _ = try Self.run(["core", "init"], home: scratch.home)
        let server = try ServedBinary(home: scratch.home, listen: "127.0.0.1:0")
        #expect(server.port > 0)
        let jwks = try Self.run(["jwks"], home: scratch.home, core: server.baseURL)
        #expect(jwks.standardOutput.hasPrefix("{\"keys\":["))
        #expect(server.stop(signal: SIGINT) == 0, "\(server.standardError)")
    }

    @Test func providerIDTokenAndEmailCodeSignIn() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let home = scratch.home
        _ = try Self.run(["core", "init"], home: home)

        // A provider: its key, its JWKS trusted for audience app1, and a token it issued.
        let provider = try P256.Signing.PrivateKey()
        let jwksFile = scratch.file("idp-jwks.json")
        let jwk = JWK(p256PublicKey: provider.publicKey, kid: "idp-1", alg: "ES256", use: "sig")
        try Data(JWKSet(keys: [jwk]).json.serialized().utf8).write(to: jwksFile)
        let trusted = try Self.run(
            [
                "core", "trust-issuer", "--issuer", "https://idp.example", "--jwks", jwksFile.path, "--audience",
                "app1",
            ], home: home)
        #expect(trusted.standardOutput == "trusted https://idp.example (audience app1, 1 keys) for prj_local\n")
        let now = Int64(Date().timeIntervalSince1970)
        func token(audience: String) throws -> URL {
            let claims: JSONObject = [
                "iss": "https://idp.example", "sub": "user-42", "aud": .string(audience), "iat": .int(now),
                "exp": .int(now + 300), "email": "Jo@Example.com", "email_verified": true,
            ]
            let file = scratch.file("token-\(audience).jwt")
            try Data((try JWT.encode(claims: claims, privateKey: provider, keyID: "idp-1") + "\n").utf8).write(to: file)
            return file
        }
        let login = try Self.run(["login", "--id-token-file", try token(audience: "app1").path], home: home)
        #expect(login.standardOutput.hasPrefix("signed in as jo@example.com (user-42)\nissuer: https://idp.example\n"))
        _ = try Self.run(["wallet", "list"], home: home)

        // A token for an audience the project does not trust is refused by the core.
        let refused = try Self.run(
            ["login", "--id-token-file", try token(audience: "other").path], home: home, expect: 1)
        #expect(refused.standardError.hasPrefix("Error: the core refused the request: "), "\(refused)")

        // Email one-time code, read from the development outbox.
        let otp = try Self.run(["login", "--otp", "--email", "code@example.com"], home: home)
        #expect(otp.standardOutput.hasPrefix("signed in as code@example.com (code@example.com)\n"), "\(otp)")

        // A project the home's core does not have is refused, naming the ones it has.
        let unknown = try Self.run(["login", "--dev", "--email", "a@b.c", "--project", "nope"], home: home, expect: 1)
        #expect(unknown.standardError.hasPrefix("Error: no project 'nope' in \(home.path) (projects: "), "\(unknown)")

        // A session shorter than the 30 s of skew is already over for the CLI: refused before any request.
        _ = try Self.run(["login", "--dev", "--email", "short@example.com", "--lifetime", "20"], home: home)
        let expired = try Self.run(["wallet", "list"], home: home, expect: 1)
        #expect(expired.standardError.hasPrefix("Error: session expired at "), "\(expired)")
        #expect(expired.standardError.contains(": sign in again: run 'walletops login"), "\(expired)")

        // Exactly one way to sign in.
        let both = try BuiltBinary.run(["login", "--dev", "--otp", "--email", "a@b.c", "--home", home.path])
        #expect(
            both.status == 64
                && both.standardError.hasPrefix("Error: give exactly one of --dev, --id-token-file, --otp"))
        try Self.checkModes(home)
    }
}
