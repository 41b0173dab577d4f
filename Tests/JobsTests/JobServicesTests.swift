import Foundation
import HomeLayout
import Jobs
import OMSCore
import OMSProtocol
import Synchronization
import Testing

/// What the CLI hands the job actions: the command's own home, working directory and sessions, with
/// nothing read from the process (its arguments, its working directory) or kept beyond the command.
@Suite struct JobServicesTests {
    /// How many cores an opener opened.
    final class OpenCount: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
    }

    /// Services of `home` whose opener counts the cores it opens.
    static func services(_ home: WalletHome, opened: OpenCount, workingDirectory: String = "/srv/run")
        -> JobServices
    {
        JobServices(home: home, workingDirectory: URL(fileURLWithPath: workingDirectory)) { home in
            opened.count.withLock { $0 += 1 }
            return try CoreConnection.inProcess(home)
        }
    }

    @Test func relativePathsAreTheCommandsWorkingDirectorys() {
        let services = Self.services(StoredCredentialTests.temporaryHome(), opened: OpenCount())
        #expect(services.path("out/wallets.csv") == "/srv/run/out/wallets.csv")
        #expect(services.path("../reports/./usage") == "/srv/reports/usage")
        #expect(services.path("/tmp/x.csv") == "/tmp/x.csv")
    }

    @Test func oneSessionPerCoreOpenedOnFirstUseAndOnlyForTheCommand() async throws {
        let home = StoredCredentialTests.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let project = try WaasService.initialize(home: home, project: "local").project
        let opened = OpenCount()
        let services = Self.services(home, opened: opened)
        let notSignedIn = #expect(throws: JobsError.self) { try services.session(coreURL: nil) }
        #expect(notSignedIn?.code == .notSignedIn)
        #expect(opened.value == 0, "the credential is checked before the core is opened")

        let connection = try CoreConnection.open(home: home, coreURL: nil)
        let first = try await SignIn.development(
            email: "first@example.com", connection: connection,
            publishableKey: try PublishableKey(project.publishableKey), lifetime: 3600)
        try first.save(home: home)
        let session = try services.session(coreURL: nil)
        #expect(session.credential.credentialId == first.credentialId)
        #expect(try services.session(coreURL: nil) === session)
        #expect(opened.value == 1)

        // Another command (a new login since) gets the new credential: no session outlives its command.
        let second = try await SignIn.development(
            email: "second@example.com", connection: connection,
            publishableKey: try PublishableKey(project.publishableKey), lifetime: 3600)
        try second.save(home: home)
        let next = try Self.services(home, opened: opened).session(coreURL: nil)
        #expect(next.credential.credentialId == second.credentialId)
        #expect(next.credential.identity.email == "second@example.com")
        #expect(try services.session(coreURL: nil).credential.credentialId == first.credentialId)
    }

    /// `prepareToClose` reaches the embedded core of every session opened: its log is copied back and
    /// emptied while the store stays open, and the core goes on answering.
    @Test func prepareToCloseEmptiesTheEmbeddedCoresLogAndTheCoreGoesOn() async throws {
        let home = StoredCredentialTests.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let project = try WaasService.initialize(home: home, project: "local").project
        let credential = try await SignIn.development(
            email: "ops@example.com", connection: try CoreConnection.open(home: home, coreURL: nil),
            publishableKey: try PublishableKey(project.publishableKey), lifetime: 3600)
        try credential.save(home: home)
        let services = Self.services(home, opened: OpenCount())
        let client = try services.session(coreURL: nil).client
        for index in 0..<20 {
            _ = try await client.call(
                .createWallet, CreateWalletRequest(networkFamily: .evm, reference: "w\(index)"), as: WalletResponse.self
            )
        }
        func walBytes() throws -> Int {
            try FileManager.default.attributesOfItem(atPath: home.databaseURL.path + "-wal")[.size] as? Int ?? -1
        }
        #expect(try walBytes() > 0)
        await services.prepareToClose()
        #expect(try walBytes() == 0)
        let listed = try await CoreConnection.allWallets(client)
        #expect(listed.count == 20)
        _ = try await client.call(
            .createWallet, CreateWalletRequest(networkFamily: .evm, reference: "after"), as: WalletResponse.self)
        #expect(try walBytes() > 0)
    }
}
