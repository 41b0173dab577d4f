import Foundation
import OMSProtocol
import Runner

/// `jobs.reconcile-summary`: the last step of `jobs/reconcile.yaml`. Reads the rows the
/// `jobs.reconcile-keys` step wrote to `output`, lists the account's wallets page by page (only their ids
/// are compared, nothing is kept), and writes `summary`: the rows by status and the count of the core's
/// wallets that no input row explains (no row's address is theirs). Its outputs are the same counts.
///
/// Written whole on every run from the rows and a fresh listing, so a resumed run's summary is the same as
/// an uninterrupted one's.
public struct ReconcileSummaryAction: Action {
    /// The summary file's fields (public contract: names as in the JSON file).
    public struct Summary: Codable, Sendable, Equatable {
        /// Rows of `output`.
        public var rows: Int
        public var present: Int
        public var missing: Int
        public var referenceMismatch: Int
        /// Wallets of the signed-in account.
        public var coreWallets: Int
        /// Wallets of the account that no row of `output` names.
        public var unexplained: Int

        enum CodingKeys: String, CodingKey {
            case rows, present, missing, unexplained
            case referenceMismatch = "reference_mismatch"
            case coreWallets = "core_wallets"
        }
    }

    /// The rows step's output (`source,reference,address,status,wallet_id`).
    public let output: String
    /// Where the summary's JSON goes.
    public let summary: String
    /// The signed-in client, opened on first use.
    let client: @Sendable () throws -> WaasClient

    /// An action that reads `output` and writes `summary`, listing the wallets of `client()`'s account.
    public init(output: String, summary: String, client: @escaping @Sendable () throws -> WaasClient) {
        self.output = output
        self.summary = summary
        self.client = client
    }

    public var name: String { "jobs.reconcile-summary" }
    public var isSideEffecting: Bool { true }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let rows: [[String: String]]
        do {
            rows = try CSVFile.read(path: output)
        } catch {
            throw ActionError.permanent("cannot read the reconcile rows \(output): \(error)")
        }
        var counts: [String: Int] = [:]
        var explained: Set<String> = []
        for row in rows {
            counts[row["status"] ?? "", default: 0] += 1
            if let id = row["wallet_id"], !id.isEmpty { explained.insert(id) }
        }
        var coreWallets = 0
        var unexplained = 0
        do {
            try await CoreConnection.forEachWalletPage(try client()) { page in
                coreWallets += page.count
                unexplained += page.filter { !explained.contains($0.id) }.count
            }
        } catch {
            throw JobFailure.classify(error)
        }
        let result = Summary(
            rows: rows.count, present: counts[ReconcileKeysAction.Status.present.rawValue] ?? 0,
            missing: counts[ReconcileKeysAction.Status.missing.rawValue] ?? 0,
            referenceMismatch: counts[ReconcileKeysAction.Status.referenceMismatch.rawValue] ?? 0,
            coreWallets: coreWallets, unexplained: unexplained)
        try CSVFile.writeText(path: summary, try OutputJSON.text(result) + "\n")
        return ActionResult(outputs: [
            "rows": String(result.rows), "present": String(result.present), "missing": String(result.missing),
            "reference_mismatch": String(result.referenceMismatch), "core_wallets": String(coreWallets),
            "unexplained": String(unexplained), "summary": summary,
        ])
    }

    /// Written again on resume: the summary is made whole from the rows and a fresh listing each time.
    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome { .notDone }
}
