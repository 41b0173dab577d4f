import Foundation
import OMSProtocol
import Runner

/// `wallet.create`: one wallet per item (a `for_each` over a CSV of references).
///
/// Each item is a one-reference `Waas/CreateWallets` request, which answers a reference the account
/// already has with that wallet (`created: false`): so running an item again (a resumed run, a retry
/// after a lost reply, a list naming wallets made earlier) never creates a second wallet, and the run is
/// its own probe. No wallet listing is needed.
public final class WalletCreateAction: Action {
    /// Renders the item's reference.
    public typealias ReferenceOf = @Sendable (WorkItem) throws -> String

    private let type: WalletType
    private let referenceOf: ReferenceOf
    /// The signed-in client, opened on first use.
    private let client: @Sendable () throws -> WaasClient

    /// An action creating wallets of `type`, named by `reference`, through `client()`.
    public init(
        type: WalletType, reference: @escaping ReferenceOf, client: @escaping @Sendable () throws -> WaasClient
    ) {
        self.type = type
        self.referenceOf = reference
        self.client = client
    }

    public var name: String { "wallet.create" }
    public var isSideEffecting: Bool { true }
    public var isIdempotent: Bool { true }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let reference = try referenceOf(item)
        let client = try client()
        do {
            let reply = try await CreateWalletsAction.create([reference], family: type.networkFamily, client: client)
            guard let wallet = reply.first?.wallet else {
                throw ActionError.permanent("wallet '\(reference)' is missing from the CreateWallets reply")
            }
            return Self.result(wallet)
        } catch {
            throw JobFailure.classify(error)
        }
    }

    /// Running the item again is safe (the core answers an existing reference), so the engine re-runs it.
    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome { .notDone }

    static func result(_ wallet: Wallet) -> ActionResult {
        ActionResult(outputs: [
            "wallet_id": wallet.id, "address": wallet.address, "type": wallet.walletType.rawValue,
            "key_origin": wallet.keyOrigin.rawValue, "reference": wallet.reference ?? "",
        ])
    }
}

/// `jobs.write-wallets`: writes the output CSV of a `for_each` creation from the core's wallets, one row
/// per reference of the input in input order, so the file holds each reference once however often the
/// run was resumed.
public struct WriteWalletsAction: Action {
    /// The references (from the input CSV), in order.
    public let references: @Sendable () throws -> [String]
    /// The output CSV.
    public let output: String
    /// The signed-in client, opened on first use.
    let client: @Sendable () throws -> WaasClient

    /// An action writing `output` from the wallets `client()` lists.
    public init(
        output: String, references: @escaping @Sendable () throws -> [String],
        client: @escaping @Sendable () throws -> WaasClient
    ) {
        self.output = output
        self.references = references
        self.client = client
    }

    public var name: String { "jobs.write-wallets" }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let client = try client()
        // Only the wallets of the input's references are kept while the account's wallets are listed
        // page by page: memory follows the input, not the account (which may hold millions of wallets).
        var seen: Set<String> = []
        let ordered = try references().filter { seen.insert($0).inserted }
        let wanted = seen
        var found: [String: Wallet] = [:]
        try await CoreConnection.forEachWalletPage(client) { page in
            // The first wallet with a reference wins: the jobs never create a second one.
            for wallet in page {
                if let reference = wallet.reference, wanted.contains(reference), found[reference] == nil {
                    found[reference] = wallet
                }
            }
        }
        let rows = ordered.compactMap { reference in
            found[reference].map { CreateWalletsAction.row($0, reference: reference) }
        }
        try CSVFile.write(path: output, header: CreateWalletsAction.header, rows: rows)
        return ActionResult(outputs: ["rows": String(rows.count), "output": output])
    }
}
