import Foundation
import KeyFormats
import OMSCore
import OMSProtocol
import Runner
import Testing
import TextFormats
import WalletCrypto

@testable import Jobs

/// The per-user transport on a real embedded core: many subjects spread over concurrent chunks, each
/// subject's keys in its own account through one sign-in, the first row of a key winning across subjects.
@Suite struct ImportPerUserTests {
    @Test(arguments: [(batch: 7, parallel: 4), (batch: 40, parallel: 2)])
    func subjectsAcrossConcurrentBatchesSignInOnceAndKeepTheirKeys(batch: Int, parallel: Int) async throws {
        let (issuer, _) = try SubjectSignInTests.ecIssuer()
        let world = try await SubjectSignInTests.World(trusting: [issuer])
        defer { world.remove() }
        let directory = try ImportKeysActionTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // 12 subjects x 6 rows, interleaved, so every batch holds several subjects and a subject spans
        // batches in flight at once; rows 73 and 74 repeat the keys of rows 1 and 2 for other subjects.
        let subjects = (1...12).map { "user-\($0)" }
        var rows: [(key: String, subject: String)] = (0..<72).map { index in
            (String(format: "%064x", (index + 1) * 104_729), subjects[index % subjects.count])
        }
        rows.append((rows[0].key, "user-5"))
        rows.append((rows[1].key, "user-9"))
        let input = directory.appendingPathComponent("users.csv").path
        try Data(("private_key,subject\n" + rows.map { "\($0.key),\($0.subject)\n" }.joined()).utf8).write(
            to: URL(fileURLWithPath: input))
        let configuration = ImportKeysActionTests.configuration(
            input, outputsIn: directory, parallel: parallel, batch: batch)
        let signIn = SubjectSignIn(issuer: issuer, connection: world.connection, publishableKey: world.publishableKey)
        let action = try Self.perUser(
            configuration, issuer: issuer, signIn: signIn, world: world, subjectsInParallel: parallel)
        let summary = try await ImportKeysActionTests.run(action, in: directory)
        #expect(summary.succeeded == 72 && summary.rejected == 2, "two duplicates: rejected rows")
        let output = CSVRecords.parse(try String(contentsOfFile: configuration.output, encoding: .utf8)).dropFirst()
        let rejects = CSVRecords.parse(try String(contentsOfFile: configuration.rejects, encoding: .utf8)).dropFirst()
        #expect(output.map { $0[0] } == (1...72).map(String.init))
        #expect(rejects.map { $0[0] } == ["73", "74"])
        #expect(rejects.allSatisfy { $0[1].hasPrefix("duplicateKey: ") && $0[2] == "duplicate" })
        #expect(await signIn.signInCount == 12, "one sign-in per subject")
        for subject in subjects {
            let wallets = try await CoreConnection.allWallets(try await signIn.client(for: subject))
            let expected = output.filter { rows[Int($0[0])! - 1].subject == subject }.map { $0[2] }
            #expect(Set(wallets.map(\.id)) == Set(expected), "\(subject)")
            #expect(wallets.count == 6)
        }
        #expect(await signIn.signInCount == 12, "cached: no new sign-in")
    }

    /// A phrase CSV in per-user mode: each row's accounts go into its subject's own account.
    @Test func phraseRowsGoToTheirSubjectsAccounts() async throws {
        let (issuer, _) = try SubjectSignInTests.ecIssuer()
        let world = try await SubjectSignInTests.World(trusting: [issuer])
        defer { world.remove() }
        let directory = try ImportKeysActionTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Trezor's BIP-39 test phrases (public), two accounts each, one subject per row.
        let phrases = [
            "legal winner thank year wave sausage worth useful legal winner thank yellow",
            "letter advice cage absurd amount doctor acoustic avoid letter advice cage above",
            "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
        ]
        let input = directory.appendingPathComponent("phrases.csv").path
        let rows = phrases.enumerated().map { "\($1),2,user-\($0 + 1)" }
        try Data(("mnemonic,count,subject\n" + rows.joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: input))
        let configuration = ImportKeysAction.Configuration(
            input: input, format: .mnemonicCSV, type: .ethereum, passwords: nil,
            output: directory.appendingPathComponent("out.csv").path,
            rejects: directory.appendingPathComponent("rej.csv").path, concurrency: 2, batchSize: 4)
        let signIn = SubjectSignIn(issuer: issuer, connection: world.connection, publishableKey: world.publishableKey)
        let summary = try await ImportKeysActionTests.run(
            Self.perUser(configuration, issuer: issuer, signIn: signIn, world: world, subjectsInParallel: 2),
            in: directory)
        #expect(summary.succeeded == 6 && summary.rejected == 0)
        for (index, phrase) in phrases.enumerated() {
            let expected = try PhraseAccounts.derive(
                try Mnemonic(phrase: SecretBytes(Array(phrase.utf8))), passphrase: SecretBytes([]), type: .ethereum,
                scheme: DerivationScheme(.ethereum), indices: [0, 1]
            ).map { try $0.secret.derived().address.lowercased() }
            let wallets = try await CoreConnection.allWallets(try await signIn.client(for: "user-\(index + 1)"))
            #expect(Set(wallets.map { $0.address.lowercased() }) == Set(expected), "user-\(index + 1)")
            #expect(Set(wallets.compactMap(\.reference)) == ["import-\(index + 1)-0", "import-\(index + 1)-1"])
        }
    }

    /// The import of `configuration` in per-user mode: each row's subject signs in through `signIn` with
    /// an ID token `issuer` mints, and the transport pins the attestation root of `world`'s core.
    static func perUser(
        _ configuration: ImportKeysAction.Configuration, issuer: AppIssuer, signIn: SubjectSignIn,
        world: SubjectSignInTests.World, subjectsInParallel: Int
    ) throws -> ImportKeysAction {
        var configuration = configuration
        configuration.perUser = try ImportKeysAction.PerUser(
            issuer: issuer.issuer, audience: issuer.audience, keyFile: "app.pem", keyID: issuer.keyID)
        let rootPEM = try String(contentsOf: world.home.attestationRootURL, encoding: .utf8)
        let transport = ImportTransport.perUser(
            signIn: signIn, verifier: AttestationVerifier(policy: try AttestationPolicy.development(rootPEM: rootPEM)),
            gate: KeyedSerialGate(), subjectsInParallel: subjectsInParallel, setUpHint: "trust the issuer")
        return ImportKeysAction(configuration, transport: transport)
    }
}
