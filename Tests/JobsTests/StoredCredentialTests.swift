import Foundation
import HomeLayout
import OMSCore
import OMSProtocol
import Runner
import Synchronization
import TestSupport
import Testing
import WalletCrypto

@testable import Jobs

@Suite struct StoredCredentialTests {
    static func temporaryHome() -> WalletHome {
        WalletHome(
            url: FileManager.default.temporaryDirectory.appendingPathComponent("walletops-jobs-\(UUID().uuidString)"))
    }

    static func credential(key: P256.Signing.PrivateKey, expiresAt: Int64, core: String = "embedded") throws
        -> StoredCredential
    {
        try StoredCredential(
            key: key, credentialId: P256RequestSigner(key: key).credentialId, expiresAt: RFC3339.format(expiresAt),
            identity: StoredCredential.Identity(iss: "https://issuer.example", sub: "u1", email: "u@example.com"),
            core: core, projectId: "prj_local", publishableKey: "pk_local_sdbx_local_abc")
    }

    @Test func savesWithMode0600AndLoadsTheSameKey() throws {
        let home = Self.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let key = try P256.Signing.PrivateKey()
        var credential = try Self.credential(key: key, expiresAt: 2_000_000_000)
        credential.activeWallet = "wal_x"
        try credential.save(home: home)

        let attributes = try FileManager.default.attributesOfItem(atPath: home.credentialURL.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: home.url.path)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)

        let loaded = try #require(try StoredCredential.load(home: home))
        #expect(loaded.credentialId == credential.credentialId)
        #expect(loaded.activeWallet == "wal_x")
        #expect(loaded.identity == credential.identity)
        let signer = try loaded.signer()
        #expect(signer.key.rawRepresentation.unsafeCopy() == key.rawRepresentation.unsafeCopy())
    }

    @Test func descriptionLeavesTheKeyOut() throws {
        let key = try P256.Signing.PrivateKey()
        let credential = try Self.credential(key: key, expiresAt: 2_000_000_000)
        let pkcs8 = Data(try key.pkcs8DERRepresentation().unsafeCopy()).base64EncodedString()
        #expect(!credential.description.contains(pkcs8))
        #expect(!"\(credential)".contains(Hex.encode(key.rawRepresentation.unsafeCopy())))
        #expect(credential.description.contains(credential.credentialId))
    }

    @Test func requireRefusesBeforeAnyRequest() throws {
        let home = Self.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let now: Int64 = 1_800_000_000

        let missing = #expect(throws: JobsError.self) {
            try StoredCredential.require(home: home, core: "embedded", now: now)
        }
        #expect(missing?.code == .notSignedIn)
        #expect(missing?.message.hasPrefix("not signed in: run 'walletops login") == true)

        try Self.credential(key: try P256.Signing.PrivateKey(), expiresAt: now + 3600).save(home: home)
        #expect(try StoredCredential.require(home: home, core: "embedded", now: now).projectId == "prj_local")

        let otherCore = #expect(throws: JobsError.self) {
            try StoredCredential.require(home: home, core: "http://127.0.0.1:1", now: now)
        }
        #expect(otherCore?.code == .notSignedIn)

        // Expired, and within the 30 s of skew before expiry.
        for expiry in [now - 1, now + 10] {
            try Self.credential(key: try P256.Signing.PrivateKey(), expiresAt: expiry).save(home: home)
            let expired = #expect(throws: JobsError.self) {
                try StoredCredential.require(home: home, core: "embedded", now: now)
            }
            #expect(expired?.code == .sessionExpired)
            #expect(
                expired?.message
                    == "session expired at \(RFC3339.format(expiry)): sign in again: run 'walletops login --dev "
                    + "--email E' (or --id-token-file F, --issuer-key-file F)")
        }

        #expect(try StoredCredential.remove(home: home))
        #expect(try !StoredCredential.remove(home: home))
        #expect(try StoredCredential.load(home: home) == nil)
    }

    /// The session's signer signs while the session lasts and refuses after (30 s early), with the message
    /// of `require`; the engine then stops the run (`unauthorized`), as it does when the core refuses the
    /// credential (expired, revoked) or a job finds no session.
    @Test func theSessionSignerRefusesOnceTheSessionIsOverAndTheRunStops() throws {
        let expiry: Int64 = 1_800_000_000
        let clock = Atomic<Int64>(expiry - 31)
        let credential = try Self.credential(key: try P256.Signing.PrivateKey(), expiresAt: expiry)
        let signer = try credential.sessionSigner { clock.load(ordering: .relaxed) }
        #expect(signer.credentialId == credential.credentialId)
        let signature = try signer.signature(forPreimage: Array("preimage".utf8))
        #expect(signature.hasPrefix("0x") && signature.count > 100)
        clock.store(expiry - 30, ordering: .relaxed)
        let refused = #expect(throws: JobsError.self) { try signer.signature(forPreimage: Array("preimage".utf8)) }
        #expect(refused?.code == .sessionExpired)
        #expect(refused?.message.hasPrefix("session expired at \(RFC3339.format(expiry)): sign in again") == true)

        for error: any Error in [
            refused!, JobsError(.notSignedIn, "not signed in"), WaasError(.keyExpired, "credential expired at ..."),
            WaasError(.unauthorized, "credential was revoked"),
        ] {
            let classified = JobFailure.classify(error)
            #expect(classified.stopCause == .unauthorized && classified.stopsRun, "\(error)")
            #expect(ActionError.of(error)?.stopCause == (error is JobsError ? .unauthorized : nil), "\(error)")
        }
        #expect(JobFailure.classify(WaasError(.walletNotFound, "no such wallet")).stopCause == nil)
        #expect(JobFailure.classify(JobsError(.invalidInput, "bad input")).stopCause == nil)
    }

    @Test func aKeyThatDoesNotMatchItsIdIsRefused() throws {
        let home = Self.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        var credential = try Self.credential(key: try P256.Signing.PrivateKey(), expiresAt: 2_000_000_000)
        credential.credentialId = P256RequestSigner(key: try P256.Signing.PrivateKey()).credentialId
        let error = #expect(throws: JobsError.self) { try credential.signer() }
        #expect(error?.code == .invalidCredential)
    }
}
