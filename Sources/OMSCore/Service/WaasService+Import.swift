import Foundation
import KeyFormats
import OMSProtocol
import SQLiteKit
import WalletCrypto

extension WaasService {
    static let importMethods: [String: Method] = [
        WaasMethod.getRecipientKey.path: method { try await $0.getRecipientKey($1, $2) },
        WaasMethod.importWallet.path: method { try await $0.importWallet($1, $2) },
        // Its own JSON reader and writer: Foundation's Codable cost several microseconds per item.
        WaasMethod.importWallets.path: method(
            { try await $0.importWallets($1, $2) }, parse: { ImportWalletsRequest(jsonBytes: $0) },
            encode: { $0.jsonBytes() }),
    ]

    /// The only purpose a recipient key serves.
    static let importPurpose = "wallet-import"
    /// The only import format.
    static let importFormat = "private-key"
    /// A recipient key lives 5 minutes (OMS-REFERENCE "Our decisions").
    static let recipientKeyLifetime: Int64 = 300
    /// Recipient keys are deleted this long after they expire (kept a while so a late import says KeyExpired).
    static let recipientKeyRetention: Int64 = 86_400

    /// `Waas/GetRecipientKey`: a fresh HPKE key pair for one import by the calling credential.
    func getRecipientKey(_ call: Call, _ request: GetRecipientKeyRequest) async throws -> GetRecipientKeyResponse {
        guard request.purpose == Self.importPurpose else {
            throw WaasError(.invalidRequest, "purpose must be \"\(Self.importPurpose)\"")
        }
        guard let suite = ImportSuite(rawValue: request.suite) else {
            let known = ImportSuite.allCases.map(\.rawValue).joined(separator: ", ")
            throw WaasError(.invalidRequest, "suite \(request.suite) is not supported (one of: \(known))")
        }
        let keyId = Identifier.make("rk")
        // Key generation and sealing are CPU work: done before the writer is held.
        let pair = try suite.hpke.kem.generateKeyPair()
        let sealed = try custody.seal(pair.privateKey, for: keyId)
        return try await admittedWrite(call) { db, caller in
            try db.execute(
                "DELETE FROM recipient_keys WHERE expires_at < ?", [.integer(call.now - Self.recipientKeyRetention)])
            try db.execute(
                "INSERT INTO recipient_keys(id, project_id, credential, suite, public_key, sealed_key, created_at, "
                    + "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(keyId), .text(call.project.id), .text(caller.credential.id), .text(suite.rawValue),
                    .blob(pair.publicKey), .blob(sealed), .integer(call.now),
                    .integer(call.now + Self.recipientKeyLifetime),
                ])
            return GetRecipientKeyResponse(keyId: keyId, publicKey: CanonicalBase64.encode(pair.publicKey))
        }
    }

    /// `Waas/ImportWallet`: opens the sealed key with the caller's recipient key, validates it, and stores
    /// it sealed under the KEK as a new wallet with key origin `imported`. The plaintext key exists only
    /// in `SecretBytes` during this call.
    func importWallet(_ call: Call, _ request: ImportWalletRequest) async throws -> WalletResponse {
        guard request.format == Self.importFormat else {
            throw WaasError(.invalidRequest, "format must be \"\(Self.importFormat)\"")
        }
        guard request.networkFamily.isKnown else {
            throw WaasError(.unsupportedWalletType, "networkFamily \(request.networkFamily) is not supported")
        }
        try Self.validateReference(request.reference)
        let material = request.keyMaterial
        let (suite, encapsulatedKey) = try Self.importEnvelope(
            suite: material.suite, encapsulatedKey: material.encapsulatedKey)
        guard let ciphertext = CanonicalBase64.decode(material.ciphertext), ciphertext.count > 16,
            ciphertext.count <= 4096
        else { throw WaasError(.invalidRequest, "keyMaterial.ciphertext must be canonical base64 of 17-4096 bytes") }
        let type = request.networkFamily.walletType
        let walletId = Identifier.make("wal")

        return try await store.write { [self] db in
            let caller = try authenticate(db, call)
            let sealedKey = try usableRecipientKey(
                db, material.keyId, suite: suite, project: call.project.id, credential: caller.credential.id,
                now: call.now)
            let privateKey = try custody.open(sealedKey, for: material.keyId)
            let plaintext: SecretBytes
            do {
                let recipient = try HPKE.Recipient(
                    suite: suite.hpke, privateKey: privateKey,
                    encapsulatedKey: encapsulatedKey, info: ImportBinding.info(keyId: material.keyId))
                var opened = try recipient.open(
                    ciphertext,
                    authenticating: ImportBinding.aad(
                        networkFamily: request.networkFamily, reference: request.reference))
                defer { SecretBytes.wipe(&opened) }
                plaintext = SecretBytes(opened)
            } catch {
                throw WaasError(
                    .invalidRequest,
                    "keyMaterial does not open with recipient key \(material.keyId) for this networkFamily and reference"
                )
            }
            let (address, sealed) = try importedKey(plaintext, type: type, walletId: walletId)
            let record = WalletRecord(
                seq: 0, id: walletId, accountId: caller.account.id, type: type, address: address,
                reference: request.reference, keyOrigin: .imported)
            let stored = try db.insertWallet(record, project: call.project.id, sealedKey: sealed, now: call.now)
            try db.execute(
                "UPDATE recipient_keys SET consumed_at = ? WHERE id = ?", [.integer(call.now), .text(material.keyId)])
            return WalletResponse(wallet: stored.wire)
        }
    }

    /// The suite and encapsulated key of import key material (single or batch), validated.
    static func importEnvelope(suite name: String, encapsulatedKey text: String) throws -> (ImportSuite, [UInt8]) {
        guard let suite = ImportSuite(rawValue: name) else {
            throw WaasError(.invalidRequest, "keyMaterial.suite \(name) is not supported")
        }
        guard let encapsulatedKey = CanonicalBase64.decode(text),
            encapsulatedKey.count == suite.hpke.kem.encapsulatedKeySize
        else {
            throw WaasError(
                .invalidRequest,
                "keyMaterial.encapsulatedKey must be canonical base64 of \(suite.hpke.kem.encapsulatedKeySize) bytes")
        }
        return (suite, encapsulatedKey)
    }

    /// Validates an imported key as OMS-REFERENCE "Import" states, derives its address and seals it.
    /// - Parameter sealer: seals with an already keyed context (a batch's chunk); else `custody.seal`.
    /// - Parameter nonce: the seal's 12 random bytes when the caller drew them in bulk.
    func importedKey(
        _ plaintext: SecretBytes, type: WalletType, walletId: String, sealer: KeyCustody.Sealer? = nil,
        nonce: [UInt8]? = nil
    ) throws -> (String, [UInt8]) {
        func seal(_ key: SecretBytes) throws -> [UInt8] {
            guard let sealer else { return try custody.seal(key, for: walletId) }
            if let nonce { return try sealer.seal(key, nonce: nonce, for: walletId) }
            return try sealer.seal(key, for: walletId)
        }
        switch type {
        case .ethereum:
            let key = try Secp256k1.PrivateKey(Self.importedSecret(plaintext, type: .ethereum))
            return (key.ethereumAddress.checksummed, try seal(key.secretBytes))
        case .solana:
            let seed = try Self.importedSecret(plaintext, type: .solana)
            return (try Ed25519.publicKey(seed: seed).solanaAddress, try seal(seed))
        case .unknown(let name):
            throw WaasError(.unsupportedWalletType, "wallet type \(name) is not supported")
        }
    }
}
