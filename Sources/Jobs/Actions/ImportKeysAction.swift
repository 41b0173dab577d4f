import Foundation
import KeyFormats
import OMSProtocol
import Runner
import WalletCrypto

/// `jobs.import-keys`: imports every key of a legacy input through the attested transport and writes
/// `output` (`source,reference,wallet_id,type,address,key_origin`) and `rejects`
/// (`source,reason,error_class`).
///
/// Design (docs/jobs.md): keys never enter the engine. The run's single item streams the input in
/// batches of `batchSize` rows (``ImportPipeline``), at most `concurrency` batches between reading and
/// writing, so memory stays flat whatever the input's size. Each key is validated without deriving
/// its address (the core derives it; the client derives only to check an `expected_address`);
/// repeated keys are found by a keyed fingerprint in the window of batches in flight, and by the
/// core's unique addresses for batches already settled, so the first row with a key wins whatever the
/// concurrency (``ImportBatcher``). The core is the checkpoint: a key whose address is already a wallet
/// with the row's reference is the same import (success); held by another wallet, it is a duplicate.
/// Outputs go to `.partial` files in source order, renamed at the end; a resumed run rewrites them
/// whole, so each row appears once.
public struct ImportKeysAction: Action {
    /// The input formats (public contract names).
    public enum Format: String, Sendable, CaseIterable {
        case hexCSV = "hex-csv"
        case base58CSV = "base58-csv"
        case keystoreDirectory = "keystore-dir"
        case solanaJSONDirectory = "solana-json-dir"
        case rawDirectory = "raw-dir"
    }

    /// What to import.
    public struct Configuration: Sendable {
        public var input: String
        public var format: Format
        /// The key type when the format leaves it open (CSV rows without `type`, raw files).
        public var type: KeyType?
        /// Where keystore passwords come from.
        public var passwords: PasswordSource?
        public var output: String
        public var rejects: String
        /// References of CSV rows without one: `<prefix>-<row>`.
        public var referencePrefix: String
        /// Batches in flight (between reading and writing).
        public var concurrency: Int
        /// Rows per batch.
        public var batchSize: Int
        public var coreURL: URL?
        /// The development attestation root to pin (default: the home's `attestation-root.pem`).
        public var attestationRoot: String?

        /// Creates a configuration.
        public init(
            input: String, format: Format, type: KeyType?, passwords: PasswordSource?, output: String,
            rejects: String, referencePrefix: String = "import", concurrency: Int = 8, batchSize: Int = 1000,
            coreURL: URL? = nil, attestationRoot: String? = nil
        ) {
            self.input = input
            self.format = format
            self.type = type
            self.passwords = passwords
            self.output = output
            self.rejects = rejects
            self.referencePrefix = referencePrefix
            self.concurrency = max(1, concurrency)
            self.batchSize = max(1, batchSize)
            self.coreURL = coreURL
            self.attestationRoot = attestationRoot
        }
    }

    /// The output header (public contract).
    public static let outputHeader = ["source", "reference", "wallet_id", "type", "address", "key_origin"]
    /// The rejects header (public contract).
    public static let rejectsHeader = ["source", "reason", "error_class"]

    public let configuration: Configuration

    /// An action for `configuration`.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    public var name: String { "jobs.import-keys" }
    public var isSideEffecting: Bool { true }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let session = try JobSession.shared(home: JobSession.commandHome(), coreURL: configuration.coreURL)
        let verifier = try session.attestationVerifier(rootPEMPath: configuration.attestationRoot)
        let transport = ImportTransport.automatic(client: session.client, verifier: verifier)
        return try await run(transport: transport, context: context)
    }

    /// The run with `transport` (tests give a fake core).
    func run(transport: ImportTransport, context: ActionContext?) async throws -> ActionResult {
        let source: ImportRowSource
        do {
            source = try ImportRowSource(configuration)
        } catch let error as KeyFormatError {
            throw ActionError.permanent("input \(configuration.input): \(error)")
        }
        let writer = try ImportOutputWriter(output: configuration.output, rejects: configuration.rejects)
        let pipeline = ImportPipeline(
            batchSize: configuration.batchSize, parallel: configuration.concurrency,
            referencePrefix: configuration.referencePrefix, transport: transport,
            progress: { rows in Self.reportProgress(rows: rows, context: context) })
        let summary: ImportPipeline.Summary
        do {
            summary = try await pipeline.run(source: source, writer: writer)
        } catch let error as KeyFormatError {
            throw ActionError.permanent("input \(configuration.input): \(error)")
        }
        try writer.finish()
        let total = summary.imported + summary.rejected
        if summary.rejected > 0 {
            throw ActionError.rejected(
                "\(summary.rejected) of \(total) rows rejected (see \(configuration.rejects)); "
                    + "\(summary.imported) imported")
        }
        return ActionResult(
            outputs: ["imported": String(summary.imported), "rejected": "0", "output": configuration.output])
    }

    /// Re-run on resume: the core settles what was already imported.
    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome { .notDone }

    /// Progress within the run's one item, after each batch is written: rows done (the total is not known
    /// while streaming); the engine shows it on the live line and in `walletops status`.
    static func reportProgress(rows: Int, context: ActionContext?) {
        context?.progress(done: rows, total: nil, unit: "rows")
    }
}
