import Foundation
import OMSProtocol
import SQLiteKit
import Synchronization
import WalletCrypto

/// The core playing an AWS Nitro enclave in development (debug) mode: it signs attestation documents
/// with a P-384 chain of its own, root -> intermediate -> short-lived leaf, and reports all-zero PCRs.
///
/// The chain is made at `core init`; the root lives 20 years (clients pin its SHA-256), the intermediate
/// 5 years, the leaf 24 hours, re-issued from the intermediate when less than an hour remains. Every
/// private key is sealed under the KEK, bound to its certificate. See docs/import.md.
final class DevEnclave: Sendable {
    /// The keys and certificates that sign documents.
    struct Identity: Sendable {
        var root: X509Certificate
        var intermediate: X509Certificate
        var leaf: X509Certificate
        var leafKey: P384.Signing.PrivateKey
    }

    enum Role: String, CaseIterable {
        case root, intermediate, leaf
    }

    static let rootLifetime: Int64 = 20 * 365 * 86_400
    static let intermediateLifetime: Int64 = 5 * 365 * 86_400
    static let leafLifetime: Int64 = 86_400
    /// A certificate is replaced when less than this remains (the leaf) or ten times this (the intermediate).
    static let renewBefore: Int64 = 3_600
    /// Certificates start a little in the past so a verifier's clock running behind still accepts them.
    static let backdate: Int64 = 300
    /// Development PCRs: 0...15, each 48 zero bytes (a debug-mode enclave).
    static let pcrCount = 16

    private let custody: KeyCustody
    private let cached = Mutex<Identity?>(nil)

    init(custody: KeyCustody) {
        self.custody = custody
    }

    /// The identity to sign with at `now`, from memory unless the leaf is near its end.
    func identity(store: CoreStore, now: Int64) async throws -> Identity {
        if let identity = cached.withLock({ $0 }), Self.isFresh(identity.leaf, now: now, margin: Self.renewBefore) {
            return identity
        }
        let identity = try await store.write { [custody] db in try Self.ensureChain(db, custody: custody, now: now) }
        cached.withLock { $0 = identity }
        return identity
    }

    /// The root certificate clients pin in development.
    func root(store: CoreStore, now: Int64) async throws -> X509Certificate {
        try await identity(store: store, now: now).root
    }

    static func isFresh(_ certificate: X509Certificate, now: Int64, margin: Int64) -> Bool {
        Int64(certificate.notAfter.timeIntervalSince1970) - now > margin
    }

    /// Loads the chain, making whatever is missing or near its end: a new root re-issues everything, a
    /// new intermediate re-issues the leaf.
    static func ensureChain(_ db: SQLiteDatabase, custody: KeyCustody, now: Int64) throws -> Identity {
        var stored: [Role: (X509Certificate, [UInt8])] = [:]
        for row in try db.rows("SELECT role, certificate, sealed_key FROM attestation_keys") {
            guard let role = Role(rawValue: row[0].text ?? ""), let der = row[1].bytes, let sealed = row[2].bytes
            else { continue }
            stored[role] = (try X509Certificate(derEncoded: der), sealed)
        }
        var renewed = false
        func load(_ role: Role, margin: Int64, make: () throws -> (X509Certificate, P384.Signing.PrivateKey)) throws
            -> (X509Certificate, P384.Signing.PrivateKey)
        {
            if !renewed, let (certificate, sealed) = stored[role], isFresh(certificate, now: now, margin: margin) {
                let scalar = try custody.open(sealed, for: aad(certificate))
                return (certificate, try P384.Signing.PrivateKey(rawRepresentation: scalar))
            }
            let (certificate, key) = try make()
            try db.execute(
                "INSERT INTO attestation_keys(role, certificate, sealed_key, not_after, created_at) VALUES (?, ?, ?, ?, ?) "
                    + "ON CONFLICT(role) DO UPDATE SET certificate = excluded.certificate, "
                    + "sealed_key = excluded.sealed_key, not_after = excluded.not_after, created_at = excluded.created_at",
                [
                    .text(role.rawValue), .blob(certificate.derBytes),
                    .blob(try custody.seal(key.rawRepresentation, for: aad(certificate))),
                    .integer(Int64(certificate.notAfter.timeIntervalSince1970)), .integer(now),
                ])
            renewed = true
            return (certificate, key)
        }
        func builder(_ name: String, key: P384.Signing.PrivateKey, lifetime: Int64, pathLength: Int?) -> X509Builder {
            X509Builder(
                subject: [("O", "walletops"), ("OU", "development enclave"), ("CN", name)],
                subjectKey: .p384(key.publicKey), notBefore: Date(timeIntervalSince1970: TimeInterval(now - backdate)),
                notAfter: Date(timeIntervalSince1970: TimeInterval(now + lifetime)), isCA: pathLength != nil,
                pathLengthConstraint: pathLength)
        }
        let (root, rootKey) = try load(.root, margin: 30 * 86_400) {
            let key = try P384.Signing.PrivateKey()
            return (
                try builder("walletops development attestation root", key: key, lifetime: rootLifetime, pathLength: 1)
                    .selfSigned(with: .p384(key)), key
            )
        }
        let (intermediate, intermediateKey) = try load(.intermediate, margin: 10 * renewBefore) {
            let key = try P384.Signing.PrivateKey()
            return (
                try builder(
                    "walletops development attestation intermediate", key: key, lifetime: intermediateLifetime,
                    pathLength: 0
                ).issued(by: root, issuerKey: .p384(rootKey)), key
            )
        }
        let (leaf, leafKey) = try load(.leaf, margin: renewBefore) {
            let key = try P384.Signing.PrivateKey()
            let name = "walletops-dev-enclave-\(Base16.encode(root.sha256Fingerprint.prefix(8)))"
            return (
                try builder(name, key: key, lifetime: leafLifetime, pathLength: nil)
                    .issued(by: intermediate, issuerKey: .p384(intermediateKey)), key
            )
        }
        return Identity(root: root, intermediate: intermediate, leaf: leaf, leafKey: leafKey)
    }

    /// Seals an attestation key to its certificate, so a key cannot be paired with another certificate.
    static func aad(_ certificate: X509Certificate) -> String {
        "attestation:\(Base16.encode(certificate.sha256Fingerprint))"
    }

    /// A signed attestation document: COSE_Sign1 (ES384, leaf key) over the Nitro payload map.
    ///
    /// - Parameters:
    ///   - timestampMillis: milliseconds since the epoch.
    ///   - publicKey: `public_key`, or nil to leave it null.
    func document(
        _ identity: Identity, nonce: [UInt8], publicKey: [UInt8]?, userData: [UInt8], timestampMillis: UInt64
    ) throws -> [UInt8] {
        let zeros = [UInt8](repeating: 0, count: 48)
        let pcrs = (0..<Self.pcrCount).map { CBOR.MapEntry(.unsigned(UInt64($0)), .bytes(zeros)) }
        let payload = CBOR.map([
            CBOR.MapEntry("module_id", .text(identity.leaf.subjectCommonName ?? "walletops-dev-enclave")),
            CBOR.MapEntry("digest", "SHA384"),
            CBOR.MapEntry("timestamp", .unsigned(timestampMillis)),
            CBOR.MapEntry("pcrs", .map(pcrs)),
            CBOR.MapEntry("certificate", .bytes(identity.leaf.derBytes)),
            CBOR.MapEntry(
                "cabundle", .array([.bytes(identity.root.derBytes), .bytes(identity.intermediate.derBytes)])),
            CBOR.MapEntry("public_key", publicKey.map { .bytes($0) } ?? .null),
            CBOR.MapEntry("user_data", .bytes(userData)),
            CBOR.MapEntry("nonce", .bytes(nonce)),
        ])
        return try COSESign1.sign(payload: payload.encoded(), privateKey: identity.leafKey).encoded()
    }
}
