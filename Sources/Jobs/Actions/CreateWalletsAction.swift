import Foundation
import OMSProtocol
import Runner

/// `jobs.create-wallets`: creates `count` wallets with references `<prefix>-1` ... `<prefix>-<count>`
/// (or one per reference of a CSV file) and writes the output CSV
/// `reference,wallet_id,type,address,key_origin`.
///
/// Exactly once by reference: the account's wallets are listed once per run into a reference map; a
/// reference found there is not created again, and a create whose reply was lost is settled by listing
/// again. The output is rewritten whole from the map at the end, so a resumed run never duplicates a row.
public struct CreateWalletsAction: Action {
    /// What to create.
    public struct Configuration: Sendable {
        /// The references, in output order.
        public var references: [String]
        /// The wallet type of every new wallet.
        public var type: WalletType
        /// The output CSV.
        public var output: String
        /// Creates in flight at once (one shared client).
        public var concurrency: Int
        /// The served core, or nil for the embedded one.
        public var coreURL: URL?

        /// Creates a configuration.
        public init(references: [String], type: WalletType, output: String, concurrency: Int = 8, coreURL: URL? = nil) {
            self.references = references
            self.type = type
            self.output = output
            self.concurrency = max(1, concurrency)
            self.coreURL = coreURL
        }

        /// `<prefix>-1` ... `<prefix>-<count>`.
        public static func references(prefix: String, count: Int) -> [String] {
            count < 1 ? [] : (1...count).map { "\(prefix)-\($0)" }
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
        let directory = try await WalletDirectory.load(client: session.client)
        let created = try await Self.createMissing(
            configuration.references, type: configuration.type, directory: directory, client: session.client,
            concurrency: configuration.concurrency)
        var rows: [[String]] = []
        for reference in configuration.references {
            guard let wallet = await directory.wallet(reference: reference) else {
                throw ActionError.permanent("wallet '\(reference)' is missing after creation")
            }
            rows.append(Self.row(wallet, reference: reference))
        }
        try CSVFile.write(path: configuration.output, header: Self.header, rows: rows)
        return ActionResult(outputs: [
            "created": String(created), "existing": String(configuration.references.count - created),
            "output": configuration.output,
        ])
    }

    /// The item is re-run on resume: the reference map makes that safe.
    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome { .notDone }

    static func row(_ wallet: Wallet, reference: String) -> [String] {
        [reference, wallet.id, wallet.walletType.rawValue, wallet.address, wallet.keyOrigin.rawValue]
    }

    /// Creates every reference the directory lacks, `concurrency` at a time; returns how many it made.
    static func createMissing(
        _ references: [String], type: WalletType, directory: WalletDirectory, client: WaasClient, concurrency: Int
    ) async throws -> Int {
        var missing: [String] = []
        for reference in references where await directory.wallet(reference: reference) == nil {
            missing.append(reference)
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            var inFlight = 0
            while next < missing.count || inFlight > 0 {
                while inFlight < concurrency && next < missing.count {
                    let reference = missing[next]
                    next += 1
                    inFlight += 1
                    group.addTask {
                        try await createOne(reference: reference, type: type, directory: directory, client: client)
                    }
                }
                try await group.next()
                inFlight -= 1
            }
            return missing.count
        }
    }

    /// Creates one wallet unless the directory has its reference; a lost reply is settled by listing.
    static func createOne(reference: String, type: WalletType, directory: WalletDirectory, client: WaasClient)
        async throws
    {
        if await directory.wallet(reference: reference) != nil { return }
        for attempt in 1...3 {
            do {
                let wallet = try await client.jobCall(
                    .createWallet, CreateWalletRequest(networkFamily: type.networkFamily, reference: reference),
                    as: WalletResponse.self
                ).wallet
                await directory.record(wallet)
                return
            } catch {
                guard JobFailure.isInDoubt(error) || (error as? WaasError)?.code.httpStatus ?? 0 >= 500,
                    attempt < 3
                else { throw JobFailure.classify(error) }
                // The request may have been applied: look before creating again.
                try await directory.refresh()
                if await directory.wallet(reference: reference) != nil { return }
            }
        }
    }
}
