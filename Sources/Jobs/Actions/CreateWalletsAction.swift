import Foundation
import OMSProtocol
import Runner

/// `jobs.create-wallets`: a chunk action that creates one wallet per item and writes the output CSV
/// `reference,wallet_id,type,address,key_origin` (a sink, in input order).
///
/// An item's reference is its `reference` field (a CSV of references), else `<prefix>-<index>` (a range
/// input `1..count`). Each chunk is one signed `Waas/CreateWallets` request for its distinct references
/// (docs/protocol.md). The core answers a reference the account already has with that wallet and
/// `created: false`, so the action is idempotent: a chunk sent again (a lost reply, a resumed run)
/// creates nothing twice, and sending it again is its probe. The engine does the fan-out, the retries,
/// the checkpoints and the ordered output (docs/engine.md "Chunk steps").
public struct CreateWalletsAction: ChunkAction {
    /// What to create.
    public struct Configuration: Sendable {
        /// The wallet type of every new wallet.
        public var type: WalletType
        /// The output CSV (a path; relative ones against the working directory).
        public var output: String
        /// References of numbered items: `<prefix>-<index>`.
        public var referencePrefix: String
        /// Chunks in flight when the step sets no `concurrency:`.
        public var concurrency: Int
        /// References per chunk when the step sets no `batch:`.
        public var batchSize: Int

        /// The default batch: the most one request may carry.
        public static let defaultBatchSize = CreateWalletsRequest.maxReferences

        /// Creates a configuration; `concurrency` and `batchSize` are raised to at least 1.
        public init(
            type: WalletType, output: String, referencePrefix: String = "wallet", concurrency: Int = 8,
            batchSize: Int = defaultBatchSize
        ) {
            self.type = type
            self.output = output
            self.referencePrefix = referencePrefix
            self.concurrency = max(1, concurrency)
            self.batchSize = max(1, batchSize)
        }
    }

    /// The output header (public contract).
    public static let header = ["reference", "wallet_id", "type", "address", "key_origin"]

    public let configuration: Configuration
    /// The signed-in client, opened by ``prepare()`` or the first chunk.
    let client: @Sendable () throws -> WaasClient

    /// An action for `configuration` that signs its requests with `client()`.
    public init(_ configuration: Configuration, client: @escaping @Sendable () throws -> WaasClient) {
        self.configuration = configuration
        self.client = client
    }

    public var name: String { "jobs.create-wallets" }
    public var isSideEffecting: Bool { true }
    public var isIdempotent: Bool { true }
    public var defaultBatch: Int { configuration.batchSize }
    /// Opens the core and signs in while the engine reads the range.
    public func prepare() async { _ = try? client() }
    public var defaultConcurrency: Int? { configuration.concurrency }

    public var sinks: [OutputSink] {
        [
            OutputSink(path: configuration.output, header: Self.header) { record in
                guard record.state == .succeeded, let id = record.outputs["wallet_id"] else { return nil }
                return [
                    record.outputs["reference"] ?? "", id, record.outputs["type"] ?? "",
                    record.outputs["address"] ?? "",
                    record.outputs["key_origin"] ?? "",
                ]
            }
        ]
    }

    /// The reference of `item`: its `reference` field, else `<prefix>-<index>`.
    func reference(of item: WorkItem) -> String? {
        if let reference = item.fields["reference"] { return reference.isEmpty ? nil : reference }
        return item.fields["index"].map { "\(configuration.referencePrefix)-\($0)" }
    }

    /// The names of the step's work counts (``ChunkContext/count(_:_:)``; docs/jobs.md "Work counts").
    enum Work {
        /// CreateWallets requests put on the wire.
        static let requests = "requests"
        /// References sent in them (every attempt counts).
        static let sent = "sent"
        /// Wallets the core made.
        static let created = "created"
        /// References the account had already (`created: false`): an earlier send's work (an interrupted
        /// run's, or a lost reply's), sent again.
        static let found = "found"
    }

    public func run(chunk: [WorkItem], context: ChunkContext) async throws -> [ItemOutcome] {
        let client = try client()
        let references = chunk.map(reference(of:))
        var seen: Set<String> = []
        let distinct = references.compactMap { $0 }.filter { seen.insert($0).inserted }
        var byReference: [String: CreatedWallet] = [:]
        do {
            for start in stride(from: 0, to: distinct.count, by: CreateWalletsRequest.maxReferences) {
                let part = Array(distinct[start..<min(distinct.count, start + CreateWalletsRequest.maxReferences)])
                context.count(Work.requests)
                context.count(Work.sent, part.count)
                let created = try await Self.create(part, family: configuration.type.networkFamily, client: client)
                for entry in created { byReference[entry.wallet.reference ?? ""] = entry }
                let new = created.count { $0.created }
                context.count(Work.created, new)
                context.count(Work.found, created.count - new)
            }
        } catch {
            throw JobFailure.classify(error)
        }
        return references.map { reference in
            guard let reference else { return .rejected(reason: "the item has no reference") }
            guard let entry = byReference[reference] else {
                return .failed(.permanent, "wallet '\(reference)' is missing from the CreateWallets reply")
            }
            var result = Self.result(entry.wallet, reference: reference)
            result.outputs["created"] = entry.created ? "true" : "false"
            return .succeeded(result)
        }
    }

    /// One CreateWallets request for `references` (distinct), answered in their order.
    static func create(_ references: [String], family: NetworkFamily, client: WaasClient) async throws
        -> [CreatedWallet]
    {
        try await client.createWallets(networkFamily: family, references: references)
    }

    /// The outputs of a wallet made (or found) for `reference`: the output row's columns.
    static func result(_ wallet: Wallet, reference: String) -> ActionResult {
        ActionResult(outputs: [
            "reference": reference, "wallet_id": wallet.id, "type": wallet.walletType.rawValue,
            "address": wallet.address, "key_origin": wallet.keyOrigin.rawValue,
        ])
    }

    static func row(_ wallet: Wallet, reference: String) -> [String] {
        [reference, wallet.id, wallet.walletType.rawValue, wallet.address, wallet.keyOrigin.rawValue]
    }
}
