import Foundation
import OMSProtocol
import Runner

#if canImport(Glibc)
import Glibc
#endif

/// `jobs.create-wallets`: creates one wallet per reference (`<prefix>-1` ... `<prefix>-<count>`, or the
/// `reference` column of a CSV file) and writes the output CSV `reference,wallet_id,type,address,key_origin`.
///
/// The references are streamed in batches through `Waas/CreateWallets` (one signed request per batch,
/// docs/protocol.md), a bounded number of batches in flight. Exactly once by reference: the core answers a
/// reference the account already has with that wallet and `created: false`, so a batch sent again (a lost
/// reply, a resumed run) creates nothing twice; the batch reply is the probe. Rows are written in
/// reference order to `<output>.partial`, renamed over `output` at the end: a resumed run redoes the
/// batches and rewrites the output whole, each row once. Memory is bounded by the batches in flight,
/// whatever the number of references.
public struct CreateWalletsAction: Action {
    /// What to create.
    public struct Configuration: Sendable {
        /// The references, in output order.
        public var source: ReferenceSource
        /// The wallet type of every new wallet.
        public var type: WalletType
        /// The output CSV.
        public var output: String
        /// Batches in flight at once (one shared client).
        public var concurrency: Int
        /// References per CreateWallets request, 1...1000.
        public var batchSize: Int
        /// The served core, or nil for the embedded one.
        public var coreURL: URL?

        /// The default batch: the most one request may carry.
        public static let defaultBatchSize = CreateWalletsRequest.maxReferences

        /// Creates a configuration; `concurrency` and `batchSize` are clamped to their ranges.
        public init(
            source: ReferenceSource, type: WalletType, output: String, concurrency: Int = 8,
            batchSize: Int = defaultBatchSize, coreURL: URL? = nil
        ) {
            self.source = source
            self.type = type
            self.output = output
            self.concurrency = max(1, concurrency)
            self.batchSize = min(max(1, batchSize), CreateWalletsRequest.maxReferences)
            self.coreURL = coreURL
        }
    }

    /// The output header (public contract).
    public static let header = ["reference", "wallet_id", "type", "address", "key_origin"]

    public let configuration: Configuration

    /// An action for `configuration`.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    public var name: String { "jobs.create-wallets" }
    public var isSideEffecting: Bool { true }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let session = try JobSession.shared(home: JobSession.commandHome(), coreURL: configuration.coreURL)
        let totals = try await Self.createAll(configuration, client: session.client) { rows in
            // In-item progress after each batch written; the total is known only for numbered references.
            context.progress(done: rows, total: configuration.source.knownCount, unit: "wallets")
        }
        return ActionResult(outputs: [
            "created": String(totals.created), "existing": String(totals.existing), "rows": String(totals.rows),
            "output": configuration.output,
        ])
    }

    /// The item is re-run on resume: every batch is answered exactly once by reference (created: false).
    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome { .notDone }

    /// What a run did.
    public struct Totals: Sendable, Equatable {
        /// Wallets this run made.
        public var created = 0
        /// References that already had their wallet.
        public var existing = 0
        /// Output rows (one per reference read).
        public var rows = 0
    }

    /// Streams the references through CreateWallets, `concurrency` batches in flight, and writes the
    /// output in reference order.
    /// `progress` is called with the rows written so far after each batch.
    public static func createAll(
        _ configuration: Configuration, client: WaasClient, progress: (Int) -> Void = { _ in }
    ) async throws -> Totals {
        let stream = try ReferenceStream(configuration.source)
        let output = try PartialOutput(path: configuration.output, header: header)
        let family = configuration.type.networkFamily
        var totals = Totals()
        do {
            try await withThrowingTaskGroup(of: (Int, [String], [CreatedWallet]).self) { group in
                var launched = 0
                var written = 0
                var exhausted = false
                var finished: [Int: ([String], [CreatedWallet])] = [:]
                while true {
                    // At most `concurrency` batches held at once: in flight, or done and waiting for their turn.
                    while !exhausted && launched - written < configuration.concurrency {
                        try Task.checkCancellation()
                        let references = try stream.next(configuration.batchSize)
                        if references.isEmpty {
                            exhausted = true
                            break
                        }
                        let index = launched
                        launched += 1
                        group.addTask {
                            (index, references, try await createBatch(references, family: family, client: client))
                        }
                    }
                    guard let (index, references, wallets) = try await group.next() else { break }
                    finished[index] = (references, wallets)
                    while let (references, wallets) = finished.removeValue(forKey: written) {
                        try output.append(
                            references, walletsInOrder(references, wallets), totals: &totals, wallets: wallets)
                        written += 1
                        progress(totals.rows)
                    }
                }
            }
            try output.finish()
        } catch {
            output.abandon()
            throw JobFailure.classify(error)
        }
        return totals
    }

    /// One CreateWallets request for a batch (its distinct references); the reply in the batch's order.
    /// A request whose outcome is unknown (transport failure, 5xx, 429) is simply sent again: the core
    /// answers what it already made with `created: false`.
    static func createBatch(_ references: [String], family: NetworkFamily, client: WaasClient) async throws
        -> [CreatedWallet]
    {
        var seen: Set<String> = []
        let distinct = references.filter { seen.insert($0).inserted }
        var attempt = 1
        while true {
            do {
                return try await StaleNonce.retrying {
                    try await client.createWallets(networkFamily: family, references: distinct)
                }
            } catch {
                let status = (error as? WaasError)?.code.httpStatus ?? 0
                guard JobFailure.isInDoubt(error) || status >= 500 || status == 429, attempt < 3 else { throw error }
                attempt += 1
                try await Task.sleep(for: .milliseconds(50 * attempt))
            }
        }
    }

    /// The wallet of each reference read, in order (a repeated reference repeats its wallet).
    static func walletsInOrder(_ references: [String], _ wallets: [CreatedWallet]) throws -> [Wallet] {
        // The client checked the reply lists the batch's distinct references in order: with as many
        // entries as references read, none repeats and the reply is already in order.
        if wallets.count == references.count { return wallets.map(\.wallet) }
        var byReference: [String: Wallet] = [:]
        for entry in wallets { byReference[entry.wallet.reference ?? ""] = entry.wallet }
        return try references.map { reference in
            guard let wallet = byReference[reference] else {
                throw ActionError.permanent("wallet '\(reference)' is missing from the CreateWallets reply")
            }
            return wallet
        }
    }

    static func row(_ wallet: Wallet, reference: String) -> [String] {
        [reference, wallet.id, wallet.walletType.rawValue, wallet.address, wallet.keyOrigin.rawValue]
    }
}

/// The output being written: `<path>.partial`, appended batch by batch in order and renamed over `path`
/// when complete, so `path` is always a whole file and a resumed run starts the partial file afresh.
final class PartialOutput {
    let path: String
    let partialPath: String
    private let handle: FileHandle

    init(path: String, header: [String]) throws {
        self.path = path
        partialPath = path + ".partial"
        let url = URL(fileURLWithPath: partialPath)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(CSVFile.text(header: header, rows: []).utf8).write(to: url)
            handle = try FileHandle(forWritingTo: url)
            try handle.seekToEnd()
        } catch {
            throw JobsError(.invalidInput, "cannot write \(partialPath): \(error.localizedDescription)")
        }
    }

    /// The bytes of the batch being written, kept between batches (one allocation for the run).
    private var buffer: [UInt8] = []

    /// Appends a batch's rows (`reference,wallet_id,type,address,key_origin`) and counts its wallets.
    func append(
        _ references: [String], _ ordered: [Wallet], totals: inout CreateWalletsAction.Totals, wallets: [CreatedWallet]
    ) throws {
        buffer.removeAll(keepingCapacity: true)
        for (reference, wallet) in zip(references, ordered) {
            CSVFile.appendField(reference, to: &buffer)
            buffer.append(0x2c)
            CSVFile.appendField(wallet.id, to: &buffer)
            buffer.append(0x2c)
            CSVFile.appendField(wallet.walletType.rawValue, to: &buffer)
            buffer.append(0x2c)
            CSVFile.appendField(wallet.address, to: &buffer)
            buffer.append(0x2c)
            CSVFile.appendField(wallet.keyOrigin.rawValue, to: &buffer)
            buffer.append(0x0d)
            buffer.append(0x0a)
        }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw JobsError(.invalidInput, "cannot write \(partialPath): \(error.localizedDescription)")
        }
        totals.rows += references.count
        for entry in wallets {
            if entry.created { totals.created += 1 } else { totals.existing += 1 }
        }
    }

    /// Syncs the partial file and renames it over the output.
    func finish() throws {
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            throw JobsError(.invalidInput, "cannot write \(partialPath): \(error.localizedDescription)")
        }
        guard rename(partialPath, path) == 0 else {
            throw JobsError(.invalidInput, "cannot rename \(partialPath) to \(path) (errno \(errno))")
        }
    }

    /// Closes the partial file after a failure; it stays for inspection and is rewritten by the next run.
    func abandon() { try? handle.close() }
}
