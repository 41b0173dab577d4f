import KeyFormats
import OMSProtocol
import Runner

extension ImportKeysAction {
    /// Imports one chunk of rows: their keys (carried by CSV rows; read, or decrypted on the pool, for
    /// files), admitted in input order against the duplicate window, then one attested import of the
    /// admitted keys. Every row gets its outcome: imported (or found imported with its reference: a
    /// resumed run), rejected with the reason and class of the rejects file, or failed retryable when the
    /// core refused that key for a passing reason (the engine sends it again alone).
    ///
    /// - Throws: what concerns the whole chunk (the transport, the session), classified for the engine.
    public func run(chunk: [WorkItem], context: ChunkContext) async throws -> [ItemOutcome] {
        try Self.checkPerUserFormat(configuration)
        let records = try await secrets(of: chunk, context: context)
        var outcomes = [ItemOutcome?](repeating: nil, count: chunk.count)
        var sending: [(index: Int, request: ImportRequestItem)] = []
        var claimed: [SecretFingerprint] = []
        defer { window.release(claimed) }
        let perUser = configuration.perUser != nil
        await context.inInputOrder {
            for (index, record) in records.enumerated() {
                let source = chunk[index].fields["source"] ?? ""
                let reference = chunk[index].fields["reference"] ?? ""
                switch record.result {
                case .failure(let error):
                    outcomes[index] = Self.rejected(
                        ImportReject(
                            reason: "\(error.code.rawValue): \(error.reason)", errorClass: error.errorClass.rawValue))
                case .success where perUser && record.subject == nil:
                    outcomes[index] = Self.rejected(.missingSubject(source: source, file: record.file))
                case .success(let secret):
                    let (fingerprint, heldBy) = window.claim(secret, source: source)
                    if let first = heldBy {
                        outcomes[index] = Self.rejected(.duplicate(of: first))
                    } else {
                        claimed.append(fingerprint)
                        sending.append(
                            (index, ImportRequestItem(secret: secret, reference: reference, subject: record.subject)))
                    }
                }
            }
        }
        if !sending.isEmpty {
            let replies: [ImportItemReply]
            do {
                let transport = try await transport.get()
                context.count(Work.sent, sending.count)
                replies = try await transport.send(sending.map(\.request)) { context.count(Work.requests) }
            } catch {
                throw JobFailure.classify(error)
            }
            guard replies.count == sending.count else {
                throw ActionError.permanent(
                    "the core answered \(replies.count) items for a chunk of \(sending.count) keys")
            }
            var (imported, found) = (0, 0)
            for ((index, request), reply) in zip(sending, replies) {
                outcomes[index] = Self.outcome(of: reply, reference: request.reference)
                switch (reply, outcomes[index]) {
                case (.imported, _): imported += 1
                case (.alreadyImported, .succeeded?): found += 1
                default: break
                }
            }
            context.count(Work.imported, imported)
            context.count(Work.found, found)
        }
        return outcomes.map { $0! }
    }

    /// The names of the step's work counts (``ChunkContext/count(_:_:)``; docs/jobs.md "Work counts").
    enum Work {
        /// Keys sealed to the core's recipient key and sent (every attempt counts).
        static let sent = "sent"
        /// Import requests put on the wire (ImportWallets, or ImportWallet on a core without ImportWallets).
        static let requests = "requests"
        /// Rows the core imported as new wallets.
        static let imported = "imported"
        /// Rows the core found imported already with their reference: an earlier send's work (an
        /// interrupted run's, or a lost reply's), sent again.
        static let found = "found"
        /// Keystore files whose key derivation (scrypt or PBKDF2) ran.
        static let decrypted = "decrypted"
    }

    /// The chunk's records in its order (``ImportItems/secrets(of:configuration:pool:context:)``).
    func secrets(of chunk: [WorkItem], context: ChunkContext) async throws -> [SecretRecord] {
        try await ImportItems.secrets(of: chunk, configuration: configuration, pool: pool, context: context)
    }

    static func rejected(_ reject: ImportReject) -> ItemOutcome {
        .rejected(reason: reject.reason, outputs: ["error_class": reject.errorClass])
    }

    /// A row's outcome from the core's answer for its key.
    static func outcome(of reply: ImportItemReply, reference: String) -> ItemOutcome {
        switch reply {
        case .imported(let wallet):
            return .succeeded(result(wallet, reference: reference))
        case .alreadyImported(let wallet) where wallet.reference == reference:
            // The same address and reference: this import, done by an earlier run or an earlier send.
            return .succeeded(result(wallet, reference: reference))
        case .alreadyImported(let wallet):
            return rejected(
                ImportReject(
                    reason:
                        "duplicateKey: already imported as wallet \(wallet.id) (reference \(wallet.reference ?? "none"))",
                    errorClass: "duplicate"))
        case .failed(let error) where error.code == .addressAlreadyImported:
            return rejected(
                ImportReject(
                    reason: "duplicateKey: the key's address is already a wallet outside this account",
                    errorClass: "duplicate"))
        case .failed(let error) where error.code.httpStatus >= 500 || error.code.httpStatus == 429:
            return .failed(.retryable, "\(error.code.name): \(error.message)")
        case .failed(let error):
            return rejected(ImportReject(reason: "\(error.code.name): \(error.message)", errorClass: "service"))
        }
    }

    /// The outputs of an imported row: the output file's columns from the core's wallet.
    static func result(_ wallet: Wallet, reference: String) -> ActionResult {
        ActionResult(outputs: [
            "reference": reference, "wallet_id": wallet.id, "type": wallet.walletType.rawValue,
            "address": wallet.address, "key_origin": wallet.keyOrigin.rawValue,
        ])
    }
}
