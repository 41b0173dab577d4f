import Foundation
import OMSProtocol
import Runner

/// `wallet.create`: one wallet per item (a `for_each` over a CSV of references), with a probe.
///
/// The run shares one reference map (listed once, listed again when a reference is not in it), so a
/// reference that exists is never created twice: neither by a resumed run (the probe finds it) nor by
/// a run over a list that names wallets made earlier (run answers the existing wallet).
public final class WalletCreateAction: Action {
    /// Renders the item's reference.
    public typealias ReferenceOf = @Sendable (WorkItem) throws -> String

    private let type: WalletType
    private let coreURL: URL?
    private let referenceOf: ReferenceOf
    private let directoryTask: DirectoryOnce

    /// An action creating wallets of `type`, named by `reference`.
    public init(type: WalletType, coreURL: URL?, reference: @escaping ReferenceOf) {
        self.type = type
        self.coreURL = coreURL
        self.referenceOf = reference
        self.directoryTask = DirectoryOnce()
    }

    public var name: String { "wallet.create" }
    public var isSideEffecting: Bool { true }

    private func directory() async throws -> (WalletDirectory, WaasClient) {
        let session = try JobSession.shared(home: JobSession.commandHome(), coreURL: coreURL)
        return (try await directoryTask.get(client: session.client), session.client)
    }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let reference = try referenceOf(item)
        let (directory, client) = try await directory()
        try await CreateWalletsAction.createOne(reference: reference, type: type, directory: directory, client: client)
        guard let wallet = await directory.wallet(reference: reference) else {
            throw ActionError.permanent("wallet '\(reference)' is missing after creation")
        }
        return Self.result(wallet)
    }

    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome {
        let reference = try referenceOf(item)
        let (directory, _) = try await directory()
        if let wallet = await directory.wallet(reference: reference) { return .done(Self.result(wallet)) }
        try await directory.refresh()
        if let wallet = await directory.wallet(reference: reference) { return .done(Self.result(wallet)) }
        return .notDone
    }

    static func result(_ wallet: Wallet) -> ActionResult {
        ActionResult(outputs: [
            "wallet_id": wallet.id, "address": wallet.address, "type": wallet.walletType.rawValue,
            "key_origin": wallet.keyOrigin.rawValue, "reference": wallet.reference ?? "",
        ])
    }
}

/// One wallet listing per action instance, made by the first item that needs it.
actor DirectoryOnce {
    private var directory: WalletDirectory?

    func get(client: WaasClient) async throws -> WalletDirectory {
        if let directory { return directory }
        let loaded = try await WalletDirectory.load(client: client)
        directory = loaded
        return loaded
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
    /// The served core, or nil.
    public let coreURL: URL?

    /// Creates the action.
    public init(output: String, coreURL: URL?, references: @escaping @Sendable () throws -> [String]) {
        self.output = output
        self.coreURL = coreURL
        self.references = references
    }

    public var name: String { "jobs.write-wallets" }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let session = try JobSession.shared(home: JobSession.commandHome(), coreURL: coreURL)
        let directory = try await WalletDirectory.load(client: session.client)
        var rows: [[String]] = []
        var seen: Set<String> = []
        for reference in try references() where seen.insert(reference).inserted {
            guard let wallet = await directory.wallet(reference: reference) else { continue }
            rows.append(CreateWalletsAction.row(wallet, reference: reference))
        }
        try CSVFile.write(path: output, header: CreateWalletsAction.header, rows: rows)
        return ActionResult(outputs: ["rows": String(rows.count), "output": output])
    }
}
