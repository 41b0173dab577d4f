import Foundation
import HomeLayout
import Jobs
import OMSCore
import OMSEmbedded
import OMSProtocol
import Synchronization
import Testing
import WalletCrypto

/// The per-user building block: an app issuer's ID tokens sign subjects in, one credential per subject.
@Suite struct SubjectSignInTests {
    /// An embedded core whose project trusts `issuer`.
    struct World {
        let home: WalletHome
        let service: WaasService
        let connection: CoreConnection
        let publishableKey: PublishableKey

        init(trusting issuers: [AppIssuer]) async throws {
            home = StoredCredentialTests.temporaryHome()
            let created = try WaasService.initialize(home: home, project: "local")
            service = try WaasService.open(home: home)
            connection = CoreConnection(
                home: home, coreURL: nil, transport: InProcessTransport(handler: service),
                developmentIssuer: CoreDevelopmentIssuer(service: service))
            publishableKey = try PublishableKey(created.project.publishableKey)
            for issuer in issuers {
                try await service.trustIssuer(
                    project: created.project.id, issuer: issuer.issuer, audience: issuer.audience, jwks: issuer.jwks)
            }
        }

        func remove() { try? FileManager.default.removeItem(at: home.url) }
    }

    static func pem(_ der: SecretBytes) -> [UInt8] {
        let body = der.withUnsafeBytes { Data($0) }.base64EncodedString(options: [.lineLength64Characters])
        return Array("-----BEGIN PRIVATE KEY-----\n\(body)\n-----END PRIVATE KEY-----\n".utf8)
    }

    static func ecIssuer(kid: String = "app-1") throws -> (AppIssuer, [UInt8]) {
        let pem = Self.pem(try P256.Signing.PrivateKey().pkcs8DERRepresentation())
        return (
            try AppIssuer(
                issuer: "https://app.example", audience: "app-users", keyID: kid, pem: pem, source: "app.pem"), pem
        )
    }

    @Test func fiftySubjectsSignInConcurrentlyAndRowsOfASubjectShareOneCredential() async throws {
        let (issuer, _) = try Self.ecIssuer()
        #expect(issuer.algorithm == .es256)
        let world = try await World(trusting: [issuer])
        defer { world.remove() }
        let signIn = SubjectSignIn(issuer: issuer, connection: world.connection, publishableKey: world.publishableKey)
        // 50 subjects, 4 rows each, all at once.
        let subjects = (1...50).map { "user-\($0)" }
        let rows = subjects.flatMap { [$0, $0, $0, $0] }.shuffled()
        let sessions = try await withThrowingTaskGroup(of: (String, SubjectSignIn.Session).self) { group in
            for subject in rows { group.addTask { (subject, try await signIn.session(for: subject)) } }
            var all: [(String, SubjectSignIn.Session)] = []
            for try await pair in group { all.append(pair) }
            return all
        }
        #expect(sessions.count == 200)
        var bySubject: [String: Set<String>] = [:]
        for (subject, session) in sessions {
            bySubject[subject, default: []].insert(session.credential.credentialId)
            #expect(session.credential.identity.sub == subject)
            #expect(session.credential.identity.iss == issuer.issuer)
        }
        #expect(bySubject.count == 50)
        #expect(bySubject.values.allSatisfy { $0.count == 1 }, "one credential per subject")
        #expect(Set(bySubject.values.compactMap(\.first)).count == 50, "no two subjects share a credential")
        #expect(await signIn.signInCount == 50)
        #expect(await signIn.cachedSubjects == 50)

        // Each client acts as its subject: a wallet made by user-1 is user-1's only.
        let first = try await signIn.client(for: "user-1")
        let wallet = try await first.call(
            .createWallet, CreateWalletRequest(networkFamily: .evm), as: WalletResponse.self
        ).wallet
        #expect(try await CoreConnection.allWallets(first).map(\.id) == [wallet.id])
        #expect(try await CoreConnection.allWallets(try await signIn.client(for: "user-2")).isEmpty)
        #expect(await signIn.signInCount == 50, "cached: no new sign-in")
    }

    @Test func signsSubjectsInAgainstAServedCore() async throws {
        let (issuer, _) = try Self.ecIssuer()
        let world = try await World(trusting: [issuer])
        defer { world.remove() }
        let server = try WaasHTTPServer.start(
            handler: world.service, wellKnown: WellKnownDocuments { _ in nil },
            configuration: WaasHTTPServer.Configuration(host: "127.0.0.1", port: 0, threadPoolSize: 2))
        let served = try CoreConnection.open(home: world.home, coreURL: server.baseURL, openHome: false)
        let signIn = SubjectSignIn(issuer: issuer, connection: served, publishableKey: world.publishableKey)
        let rows = (1...10).flatMap { ["served-\($0)", "served-\($0)", "served-\($0)"] }
        let credentials = try await withThrowingTaskGroup(of: (String, StoredCredential).self) { group in
            for subject in rows { group.addTask { (subject, try await signIn.session(for: subject).credential) } }
            var all: [String: Set<String>] = [:]
            for try await (subject, credential) in group {
                all[subject, default: []].insert(credential.credentialId)
                #expect(credential.core == served.coreName)
            }
            return all
        }
        #expect(credentials.count == 10 && credentials.values.allSatisfy { $0.count == 1 })
        #expect(await signIn.signInCount == 10)
        let wallets = try await CoreConnection.allWallets(try await signIn.client(for: "served-3"))
        #expect(wallets.isEmpty)
        await server.stop(grace: .seconds(1))
    }

    @Test func theCacheIsBoundedAndRenewsNearExpiry() async throws {
        let (issuer, _) = try Self.ecIssuer()
        let world = try await World(trusting: [issuer])
        defer { world.remove() }
        let clock = Clock()
        let signIn = SubjectSignIn(
            issuer: issuer, connection: world.connection, publishableKey: world.publishableKey, lifetime: 600,
            capacity: 3, renewal: 120, now: { clock.now })
        for subject in ["a", "b", "c"] { _ = try await signIn.session(for: subject) }
        _ = try await signIn.session(for: "a")  // a is now the most recent; b the least
        _ = try await signIn.session(for: "d")  // evicts b
        #expect(await signIn.cachedSubjects == 3)
        #expect(await signIn.signInCount == 4)
        _ = try await signIn.session(for: "a")
        _ = try await signIn.session(for: "c")
        #expect(await signIn.signInCount == 4, "a and c were kept")
        let again = try await signIn.session(for: "b")
        #expect(await signIn.signInCount == 5, "b was evicted and signs in again")

        // Within `renewal` of the expiry: a fresh sign-in, a new credential.
        clock.now = try #require(again.credential.expiresAtSeconds) - 100
        let renewed = try await signIn.session(for: "b")
        #expect(renewed.credential.credentialId != again.credential.credentialId)
        #expect(await signIn.signInCount == 6)
    }

    @Test func rs256IssuerAndWrongKeysAreRefusedByTheCore() async throws {
        let rsa = try RSA.PrivateKey()
        let rsaPEM = Self.pem(try rsa.pkcs8DERRepresentation())
        let rsaIssuer = try AppIssuer(
            issuer: "https://rsa.example", audience: "rsa-users", keyID: "rsa-1", pem: rsaPEM, source: "rsa.pem")
        #expect(rsaIssuer.algorithm == .rs256)
        #expect(rsaIssuer.jwks.keys.first?.kty == "RSA" && rsaIssuer.jwks.keys.first?.kid == "rsa-1")
        let (trusted, _) = try Self.ecIssuer()
        let world = try await World(trusting: [trusted, rsaIssuer])
        defer { world.remove() }

        let rsaSignIn = SubjectSignIn(
            issuer: rsaIssuer, connection: world.connection, publishableKey: world.publishableKey)
        #expect(try await rsaSignIn.session(for: "r1").credential.identity.sub == "r1")

        // Same issuer, audience and kid, another key: the signature does not verify, the core refuses.
        let (impostor, _) = try Self.ecIssuer()
        let refused = SubjectSignIn(
            issuer: impostor, connection: world.connection, publishableKey: world.publishableKey)
        await #expect(throws: WaasError.self) { try await refused.session(for: "user-1") }
        // A failed sign-in is not cached: every row tries (and fails) again.
        await #expect(throws: WaasError.self) { try await refused.session(for: "user-1") }
        #expect(await refused.signInCount == 2)
        #expect(await refused.cachedSubjects == 0)
        // A kid the core does not know is refused too.
        let (unknownKid, _) = try Self.ecIssuer(kid: "app-2")
        let other = SubjectSignIn(
            issuer: unknownKid, connection: world.connection, publishableKey: world.publishableKey)
        await #expect(throws: WaasError.self) { try await other.session(for: "user-1") }
        await #expect(throws: JobsError.self) { try await other.session(for: "") }
    }

    @Test func thePEMKeyNeverAppearsInDescriptionsOrErrors() throws {
        let (issuer, pem) = try Self.ecIssuer()
        let text = String(decoding: pem, as: UTF8.self)
        let body = text.split(separator: "\n").dropFirst().dropLast().joined()
        let token = try issuer.idToken(subject: "s", now: 1_000)
        for shown in [issuer.description, String(describing: issuer), "\(issuer.jwks.json)", token] {
            #expect(!shown.contains(body.prefix(40)))
            for line in text.split(separator: "\n") where line.count > 20 && !line.hasPrefix("-----") {
                #expect(!shown.contains(line))
            }
        }
        // A token is a JWT of the issuer for the subject, a few minutes long, signed with the kid.
        let jwt = try JWT.verifyIDToken(
            token, keys: issuer.jwks,
            validation: .init(
                issuer: "https://app.example", audience: "app-users", now: Date(timeIntervalSince1970: 1_010)))
        #expect(jwt.subject == "s" && jwt.jws.keyID == "app-1")
        #expect(jwt.claims["exp"]?.intValue == 1_300)

        // Broken files: the error names the file, never its content.
        var broken = pem
        broken[40] = UInt8(ascii: "!")
        for bad in [broken, Array(text.replacingOccurrences(of: "PRIVATE KEY", with: "PUBLIC THING").utf8)] {
            do {
                _ = try AppIssuer(issuer: "i", audience: "a", keyID: "k", pem: bad, source: "bad.pem")
                Issue.record("a broken PEM was accepted")
            } catch let error as JobsError {
                #expect(error.message.contains("bad.pem"))
                #expect(!error.message.contains(body.prefix(20)))
            }
        }
        #expect(throws: JobsError.self) {
            try AppIssuer(issuer: "i", audience: "a", keyID: "k", pemFile: "/nonexistent/app.pem")
        }
    }

    final class Clock: Sendable {
        private let value = Mutex(Int64(Date().timeIntervalSince1970))
        var now: Int64 {
            get { value.withLock { $0 } }
            set { value.withLock { $0 = newValue } }
        }
    }
}
