import KeyFormats
import OMSProtocol
import Runner

/// `jobs.reconcile-keys`: the rows step of `jobs/reconcile.yaml`. A chunk action over the same items as
/// the import (every row, file or phrase account of an input of any import format): each item's address
/// is derived here, from its key in wiped memory, and looked up among the signed-in account's wallets.
/// Nothing is sent but the listing's requests: no key leaves the machine.
///
/// Each item's `status` is `present` (a wallet has the address and the row's reference),
/// `reference-mismatch` (a wallet has the address under another reference, or none) or `missing` (no
/// wallet of the account has it). A missing row is rejected, so the run exits 1; a row whose key cannot be
/// read goes to `rejects` as the import would reject it. The step's sinks are `output`
/// (``header``: `source,reference,address,status,wallet_id`) and `rejects` (`source,reason,error_class`).
/// A read only: a resumed run derives again the rows in flight and nothing else.
public struct ReconcileKeysAction: ChunkAction {
    /// What to reconcile: the input and its format options exactly as the import takes them (its
    /// `output` and `rejects` are this step's sinks).
    public let configuration: ImportKeysAction.Configuration
    /// The account's wallets by address, listed once (all pages) on the first chunk.
    let directory: MadeOnce<WalletDirectory>
    /// Where keystores are decrypted (shared by the step's chunks).
    let pool: KeystoreDecryptionPool

    /// The output header (public contract).
    public static let header = ["source", "reference", "address", "status", "wallet_id"]

    /// A row's status (public contract names).
    public enum Status: String, Sendable, CaseIterable {
        case present
        case missing
        case referenceMismatch = "reference-mismatch"
    }

    /// An action that lists the wallets of `client()`'s account, decrypting keystores with `keystoreDecryption`.
    public init(
        _ configuration: ImportKeysAction.Configuration,
        keystoreDecryption: KeystoreDecryptionPool.Configuration = .automatic(),
        client: @escaping @Sendable () throws -> WaasClient
    ) {
        self.configuration = configuration
        pool = KeystoreDecryptionPool(configuration: keystoreDecryption)
        directory = MadeOnce {
            do {
                return try await WalletDirectory.load(client: try client())
            } catch {
                throw JobFailure.classify(error)
            }
        }
        items = ImportItems.source(configuration)
    }

    public var name: String { "jobs.reconcile-keys" }
    public var defaultBatch: Int { configuration.batchSize }
    public var defaultConcurrency: Int? { configuration.concurrency }
    public let items: ItemSource?
    public var inputPaths: [String] { [configuration.input] }

    public var sinks: [OutputSink] {
        [
            OutputSink(path: configuration.output, header: Self.header) { record in
                let outputs = record.outputs
                guard record.state == .succeeded || record.state == .rejected, let status = outputs["status"] else {
                    return nil
                }
                return [
                    record.fields["source"] ?? "", outputs["reference"] ?? "", outputs["address"] ?? "", status,
                    outputs["wallet_id"] ?? "",
                ]
            },
            // A missing row is in `output`; the rejects file holds the rows whose key cannot be read.
            OutputSink(path: configuration.rejects, header: ImportKeysAction.rejectsHeader) { record in
                record.outputs["status"] == nil ? ImportKeysAction.rejectsRow(record) : nil
            },
        ]
    }

    /// Derives each item's address and looks it up: one outcome per item, in order.
    ///
    /// - Throws: what concerns the whole chunk (the listing of the wallets), classified for the engine.
    public func run(chunk: [WorkItem], context: ChunkContext) async throws -> [ItemOutcome] {
        let records = try await ImportItems.secrets(
            of: chunk, configuration: configuration, pool: pool, context: context)
        let directory = try await directory.get()
        var outcomes: [ItemOutcome] = []
        outcomes.reserveCapacity(chunk.count)
        for (item, record) in zip(chunk, records) {
            let reference = item.fields["reference"] ?? ""
            let address: String
            do {
                address = try record.result.get().derived().address
            } catch {
                outcomes.append(
                    .rejected(
                        reason: "\(error.code.rawValue): \(error.reason)",
                        outputs: ["error_class": error.errorClass.rawValue]))
                continue
            }
            let wallet = await directory.wallet(address: address)
            let status: Status =
                wallet == nil ? .missing : wallet?.reference == reference ? .present : .referenceMismatch
            context.count(status.rawValue)
            let outputs = [
                "reference": reference, "address": address, "status": status.rawValue, "wallet_id": wallet?.id ?? "",
            ]
            if status == .missing {
                outcomes.append(
                    .rejected(
                        reason: "missing: no wallet of the account has the address \(address) (reference \(reference))",
                        outputs: outputs))
            } else {
                outcomes.append(.succeeded(ActionResult(outputs: outputs)))
            }
        }
        return outcomes
    }
}
