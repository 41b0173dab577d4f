import Foundation
import KeyFormats
import OMSProtocol
import SQLiteKit
import WalletCrypto

extension WaasService {
    /// An item of a batch after the CPU work: its key opened, validated, its address derived (and the
    /// address's index key, ``WalletAddressKey``) and the key sealed under the KEK for its new wallet id;
    /// or why the item is refused.
    enum PreparedImport: Sendable {
        case ready(
            walletId: String, type: WalletType, address: String, addressKey: Int64, reference: String?,
            sealedKey: [UInt8])
        case refused(WaasError)
    }

    /// Below this many items a batch is prepared on one task: splitting costs more than it saves.
    static let batchImportMinimumChunk = 32
    /// The most items one preparation task takes.
    static let batchImportChunk = 1000

    /// `Waas/ImportWallets` (a walletops extension, docs/import.md "Batched import"): up to 4,000 keys
    /// sealed to one recipient key as the messages of one HPKE context, item `i` at sequence number `i`.
    ///
    /// The nonce write is queued first (awaited before the insert); the caller and the recipient key are
    /// checked on the reader connection (this credential's, unused, unexpired, this suite); then every
    /// item is opened and validated and its key sealed under the KEK outside the writer, spread over the
    /// cores; then one write checks the credential and the key again, uses the key up and inserts every
    /// prepared wallet in one transaction. Item failures are results, in request
    /// order; only batch-level refusals fail the call.
    func importWallets(_ call: Call, _ request: ImportWalletsRequest) async throws -> ImportWalletsResponse {
        let count = request.wallets.count
        guard (1...ImportWalletsRequest.maxWallets).contains(count) else {
            throw WaasError(
                .invalidRequest,
                "wallets has \(count) items; ImportWallets takes 1 to \(ImportWalletsRequest.maxWallets)")
        }
        let material = request.keyMaterial
        let (suite, encapsulatedKey) = try Self.importEnvelope(
            suite: material.suite, encapsulatedKey: material.encapsulatedKey)
        let credential = try signature(of: call).credential
        // The nonce is taken now, in arrival order, and its answer awaited only before the insert: the
        // batches in flight on one credential then prepare at the same time (see createWallets).
        let authentication = try admit(call)
        // On the reader connection: a caller or a key that cannot serve this batch is refused before any
        // CPU work.
        let sealedRecipientKey: [UInt8]
        do {
            let nonceSeen: Bool
            (nonceSeen, sealedRecipientKey) = try await store.read { [self] db in
                let (_, nonceSeen) = try signedInCaller(db, call)
                return (
                    nonceSeen,
                    try usableRecipientKey(
                        db, material.keyId, suite: suite, project: call.project.id, credential: credential,
                        now: call.now)
                )
            }
            if nonceSeen { _ = try await authentication.value() }
        } catch {
            // The nonce write's verdict first: a request it refuses is refused for that reason.
            _ = try await authentication.value()
            throw error
        }
        let recipientKey = try custody.open(sealedRecipientKey, for: material.keyId)
        let project = call.project.id
        let prepared = try await prepareImports(
            request.wallets, suite: suite, recipientKey: recipientKey, encapsulatedKey: encapsulatedKey,
            keyId: material.keyId, project: project)
        let account = try await authentication.value()

        // The writer only checks, inserts and notes each item's fate: the reply's wallets are built after
        // the commit, off the writer's thread, which every batch in flight waits for.
        let fates = try await store.write(weight: prepared.count) { [self] db in
            // Still the caller's to use: not revoked since the request was authenticated.
            guard try db.credential(credential, project: project)?.revokedAt == nil else {
                throw WaasError(.unauthorized, "credential was revoked")
            }
            // Again inside the transaction: another request may have used the key since the read.
            _ = try usableRecipientKey(
                db, material.keyId, suite: suite, project: project, credential: credential, now: call.now)
            try db.execute(
                "UPDATE recipient_keys SET consumed_at = ? WHERE id = ?", [.integer(call.now), .text(material.keyId)])
            var rows: [SQLiteDatabase.ImportedWalletRow] = []
            rows.reserveCapacity(prepared.count)
            for item in prepared {
                guard
                    case .ready(let walletId, let type, let address, let addressKey, let reference, let sealedKey) =
                        item
                else { continue }
                let record = WalletRecord(
                    seq: 0, id: walletId, accountId: account, type: type, address: address, reference: reference,
                    keyOrigin: .imported)
                rows.append(.init(record: record, addressKey: addressKey, sealedKey: sealedKey))
            }
            let holders = try db.insertImportedWallets(rows, project: project, now: call.now)
            var row = 0
            var fates: [ImportFate] = []
            fates.reserveCapacity(prepared.count)
            for item in prepared {
                guard case .ready = item else {
                    fates.append(.refused)
                    continue
                }
                defer { row += 1 }
                guard let holder = holders[row] else {
                    fates.append(.stored)
                    continue
                }
                // The holder is named only to its own account: a resumed import learns its wallet without deriving
                // anything, and another account's wallet stays undisclosed.
                fates.append(.duplicate(own: holder.accountId == account ? holder.wire : nil))
            }
            return fates
        }
        var results: [ImportWalletsResult] = []
        results.reserveCapacity(prepared.count)
        for (index, (item, fate)) in zip(prepared, fates).enumerated() {
            switch (item, fate) {
            case (.refused(let error), _):
                results.append(ImportWalletsResult(error: ImportItemError(error)))
            case (.ready(let walletId, let type, let address, _, let reference, _), .stored):
                results.append(
                    ImportWalletsResult(
                        wallet: Wallet(
                            id: walletId, address: address, networkFamily: type.networkFamily, keyOrigin: .imported,
                            type: type, reference: reference)))
            case (.ready(_, _, let address, _, _, _), .duplicate(let own)):
                let message = "wallets[\(index)]: a wallet with address \(address) already exists"
                results.append(
                    ImportWalletsResult(
                        wallet: own, error: ImportItemError(WaasError(.addressAlreadyImported, message))))
            case (.ready, .refused):
                preconditionFailure("a ready item is stored or a duplicate")
            }
        }
        return ImportWalletsResponse(results: results)
    }

    /// What the writer did with a prepared item.
    private enum ImportFate: Sendable {
        case stored
        /// Its address is held: by a wallet of the caller's account (`own`) or of another.
        case duplicate(own: Wallet?)
        /// Refused before the write.
        case refused
    }

    /// The sealed private half of recipient key `keyId` if it can serve an import by `credential` now.
    ///
    /// - Throws: KeyNotFound (missing, another credential's, used), KeyExpired, InvalidRequest (another
    ///   suite).
    func usableRecipientKey(
        _ db: SQLiteDatabase, _ keyId: String, suite: ImportSuite, project: String, credential: String, now: Int64
    ) throws -> [UInt8] {
        let row = try db.rows(
            "SELECT credential, suite, sealed_key, expires_at, consumed_at FROM recipient_keys "
                + "WHERE id = ? AND project_id = ?", [.text(keyId), .text(project)]
        ).first
        // Another credential's key is indistinguishable from a missing one.
        guard let row, row[0].text == credential, let sealedKey = row[2].bytes else {
            throw WaasError(.keyNotFound, "no recipient key \(keyId) for this credential")
        }
        guard row[4].int == nil else { throw WaasError(.keyNotFound, "recipient key \(keyId) was already used") }
        guard now <= row[3].int ?? 0 else {
            throw WaasError(.keyExpired, "recipient key \(keyId) expired at \(RFC3339.format(row[3].int ?? 0))")
        }
        guard row[1].text == suite.rawValue else {
            throw WaasError(
                .invalidRequest, "keyMaterial.suite \(suite.rawValue) is not the recipient key's (\(row[1].text ?? ""))"
            )
        }
        return sealedKey
    }

    /// Opens, validates and seals every item, in chunks over the cores (one HPKE recipient context per
    /// chunk: a context is not shared between threads). Results are in item order.
    ///
    /// A batch goes as chunks of at most ``batchImportChunk`` items, tasks of the cooperative pool, so
    /// a large batch prepared beside another still spreads over every core once the other is done (as a
    /// single task it kept one core while the other idled, with the import job's few large batches in
    /// flight). Below that, a batch is split over the cores only when no other is being prepared: each
    /// further chunk pays another HPKE setup (decapsulation, P-256 key parsing: about 1.6 % of a Solana
    /// import's CPU at two chunks of 500, docs/bench.md "Import CPU per key").
    func prepareImports(
        _ items: [ImportWalletsItem], suite: ImportSuite, recipientKey: SecretBytes, encapsulatedKey: [UInt8],
        keyId: String, project: String
    ) async throws -> [PreparedImport] {
        let others = importsPreparing.add(1, ordering: .relaxed).oldValue
        defer { importsPreparing.subtract(1, ordering: .relaxed) }
        let spread =
            others > 0
            ? 1
            : max(1, min(ProcessInfo.processInfo.activeProcessorCount, items.count / Self.batchImportMinimumChunk))
        let workers = max(spread, (items.count + Self.batchImportChunk - 1) / Self.batchImportChunk)
        let chunk = (items.count + workers - 1) / workers
        // One clock reading for the batch: its wallet ids sort together (appended to the id index).
        let milliseconds = UInt64(Date().timeIntervalSince1970 * 1000)
        if workers == 1 {
            return try prepareImports(
                items, range: items.indices, suite: suite, recipientKey: recipientKey,
                encapsulatedKey: encapsulatedKey, keyId: keyId, project: project, milliseconds: milliseconds)
        }
        return try await withThrowingTaskGroup(of: (Int, [PreparedImport]).self) { group in
            for start in stride(from: 0, to: items.count, by: chunk) {
                let range = start..<min(start + chunk, items.count)
                group.addTask { [self] in
                    (
                        start,
                        try prepareImports(
                            items, range: range, suite: suite, recipientKey: recipientKey,
                            encapsulatedKey: encapsulatedKey, keyId: keyId, project: project,
                            milliseconds: milliseconds)
                    )
                }
            }
            var chunks: [(Int, [PreparedImport])] = []
            for try await done in group { chunks.append(done) }
            return chunks.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }

    /// Random bytes per item: the seal's nonce (12), the wallet id's random part (10).
    private static let importRandomStride = 22

    /// Prepares `items[range]`: each opens at its own sequence number, so one that fails to open leaves
    /// the others as they are. The chunk's nonces and id bytes come from one CSPRNG draw, not four
    /// getrandom calls per item; its Solana public keys come from one batched derivation
    /// (`Ed25519.publicKeys(seeds:)`: one field inversion for the lot).
    private func prepareImports(
        _ items: [ImportWalletsItem], range: Range<Int>, suite: ImportSuite, recipientKey: SecretBytes,
        encapsulatedKey: [UInt8], keyId: String, project: String, milliseconds: UInt64
    ) throws -> [PreparedImport] {
        let recipient: HPKE.Recipient
        do {
            recipient = try HPKE.Recipient(
                suite: suite.hpke, privateKey: recipientKey, encapsulatedKey: encapsulatedKey,
                info: ImportBinding.info(keyId: keyId))
        } catch {
            throw WaasError(.invalidRequest, "keyMaterial.encapsulatedKey is not a \(suite.rawValue) public key")
        }
        let sealer = try custody.sealer()
        let stride = Self.importRandomStride
        let random = SecretBytes.random(count: range.count * stride)
        var prepared = [PreparedImport?](repeating: nil, count: range.count)
        // Solana items wait for the chunk's batched derivation: (index, seed, wallet id, seal nonce).
        var solana: [(index: Int, seed: SecretBytes, walletId: String, nonce: [UInt8])] = []
        func refuse(_ index: Int, _ error: WaasError) {
            prepared[index - range.lowerBound] = .refused(WaasError(error.code, "wallets[\(index)]: \(error.message)"))
        }
        try random.withUnsafeBytes { raw in
            for index in range {
                let base = (index - range.lowerBound) * stride
                let nonce = Array(raw[base..<base + 12])
                let walletId = Identifier.make(
                    "wal", milliseconds: milliseconds,
                    random: UnsafeRawBufferPointer(rebasing: raw[base + 12..<base + stride]))
                do {
                    let item = items[index]
                    let plaintext = try openImport(item, index: index, recipient: recipient, keyId: keyId)
                    let type = item.networkFamily.walletType
                    if type == .solana {
                        solana.append((index, try Self.importedSecret(plaintext, type: .solana), walletId, nonce))
                        continue
                    }
                    let (address, sealed) = try importedKey(
                        plaintext, type: type, walletId: walletId, sealer: sealer, nonce: nonce)
                    prepared[index - range.lowerBound] = .ready(
                        walletId: walletId, type: type, address: address,
                        addressKey: WalletAddressKey.of(project: project, address: address), reference: item.reference,
                        sealedKey: sealed)
                } catch let error as WaasError {
                    refuse(index, error)
                }
            }
        }
        if !solana.isEmpty {
            let publicKeys = try Ed25519.publicKeys(seeds: solana.map(\.seed))
            for (entry, publicKey) in zip(solana, publicKeys) {
                do {
                    let sealed = try sealer.seal(entry.seed, nonce: entry.nonce, for: entry.walletId)
                    let address = publicKey.solanaAddress
                    prepared[entry.index - range.lowerBound] = .ready(
                        walletId: entry.walletId, type: .solana, address: address,
                        addressKey: WalletAddressKey.of(project: project, address: address),
                        reference: items[entry.index].reference, sealedKey: sealed)
                } catch let error as WaasError {
                    refuse(entry.index, error)
                }
            }
        }
        return prepared.map { $0! }
    }

    /// One item's checks before its key is read, those of a single ImportWallet in the same order; its
    /// plaintext. Throws `WaasError` for a refusal of this item, anything else for a failure of the core
    /// (which fails the batch).
    private func openImport(_ item: ImportWalletsItem, index: Int, recipient: HPKE.Recipient, keyId: String) throws
        -> SecretBytes
    {
        guard item.networkFamily.isKnown else {
            throw WaasError(.unsupportedWalletType, "networkFamily \(item.networkFamily) is not supported")
        }
        try Self.validateReference(item.reference)
        guard let ciphertext = CanonicalBase64.decode(item.ciphertext), ciphertext.count > 16,
            ciphertext.count <= 4096
        else { throw WaasError(.invalidRequest, "ciphertext must be canonical base64 of 17-4096 bytes") }
        do {
            var opened = try recipient.open(
                ciphertext,
                authenticating: ImportBinding.batchAAD(
                    index: index, networkFamily: item.networkFamily, reference: item.reference),
                sequenceNumber: UInt64(index))
            defer { SecretBytes.wipe(&opened) }
            return SecretBytes(opened)
        } catch {
            throw WaasError(
                .invalidRequest,
                "does not open with recipient key \(keyId) at this index for this networkFamily and reference")
        }
    }
}
