import Foundation
import KeyFormats
import OMSProtocol
import Runner
import WalletCrypto

/// `jobs.import-keys`: imports every key of a legacy input through the attested transport
/// (GetRecipientKey -> HPKE -> ImportWallet) and writes `output`
/// (`source,reference,wallet_id,type,address,key_origin`) and `rejects` (`source,reason,error_class`).
///
/// Design (docs/jobs.md): keys never enter the engine. The run's single item reads the input in a
/// pre-pass into a process-local table (row -> parsed key in `SecretBytes`, dropped at the end of the
/// run; memory grows with the rows, about 200 bytes each), decides duplicates by row order (the first
/// row with a key wins, whatever the concurrency), then imports with bounded concurrency. The core is
/// the checkpoint: a key whose address is already a wallet with the row's reference is the same import
/// (success); held by another wallet, it is a duplicate (reject). Outputs are rewritten whole at the
/// end, so a resumed run holds each row once.
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
        public var concurrency: Int
        public var coreURL: URL?
        /// The development attestation root to pin (default: the home's `attestation-root.pem`).
        public var attestationRoot: String?

        /// Creates a configuration.
        public init(
            input: String, format: Format, type: KeyType?, passwords: PasswordSource?, output: String,
            rejects: String, referencePrefix: String = "import", concurrency: Int = 8, coreURL: URL? = nil,
            attestationRoot: String? = nil
        ) {
            self.input = input
            self.format = format
            self.type = type
            self.passwords = passwords
            self.output = output
            self.rejects = rejects
            self.referencePrefix = referencePrefix
            self.concurrency = max(1, concurrency)
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

    /// One input row after the pre-pass: a key to import or a reason to reject.
    struct Entry: Sendable {
        var source: String
        var reference: String
        var key: ParsedKey?
        var reject: (reason: String, errorClass: String)?
    }

    enum Outcome: Sendable {
        case imported(Wallet)
        case rejected(reason: String, errorClass: String)
    }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let session = try JobSession.shared(home: JobSession.commandHome(), coreURL: configuration.coreURL)
        let verifier = try session.attestationVerifier(rootPEMPath: configuration.attestationRoot)
        let entries = try await read()
        let directory = try await WalletDirectory.load(client: session.client)
        let outcomes = try await importAll(entries, directory: directory, client: session.client, verifier: verifier)

        var rows: [[String]] = []
        var rejects: [[String]] = []
        for (index, entry) in entries.enumerated() {
            switch outcomes[index] {
            case .imported(let wallet):
                rows.append([
                    entry.source, entry.reference, wallet.id, wallet.walletType.rawValue, wallet.address,
                    wallet.keyOrigin.rawValue,
                ])
            case .rejected(let reason, let errorClass):
                rejects.append([entry.source, reason, errorClass])
            }
        }
        try CSVFile.write(path: configuration.output, header: Self.outputHeader, rows: rows)
        try CSVFile.write(path: configuration.rejects, header: Self.rejectsHeader, rows: rejects)
        if !rejects.isEmpty {
            throw ActionError.rejected(
                "\(rejects.count) of \(entries.count) rows rejected (see \(configuration.rejects)); "
                    + "\(rows.count) imported")
        }
        return ActionResult(outputs: ["imported": String(rows.count), "rejected": "0", "output": configuration.output])
    }

    /// Re-run on resume: the core settles what was already imported.
    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome { .notDone }

    // MARK: - Pre-pass

    /// Reads and validates every row, in input order, and rejects later copies of a key.
    func read() async throws -> [Entry] {
        var records: [KeyRecord] = []
        do {
            switch configuration.format {
            case .hexCSV, .base58CSV:
                let reader = try CSVKeyReader(
                    path: configuration.input,
                    defaultType: configuration.type ?? (configuration.format == .hexCSV ? .ethereum : .solana))
                while let record = try reader.next() { records.append(record) }
            case .solanaJSONDirectory:
                records = Array(try KeyDirectoryReader(directory: configuration.input, format: .solanaKeypairJSON))
            case .rawDirectory:
                guard let type = configuration.type else {
                    throw JobsError(.invalidInput, "format raw-dir needs type (ethereum or solana)")
                }
                records = Array(try KeyDirectoryReader(directory: configuration.input, format: .raw(type)))
            case .keystoreDirectory:
                guard let passwords = configuration.passwords else {
                    throw JobsError(.invalidInput, "format keystore-dir needs password_env or password_file")
                }
                records = try await Self.decryptAll(directory: configuration.input, passwords: passwords)
            }
        } catch let error as KeyFormatError {
            throw ActionError.permanent("input \(configuration.input): \(error)")
        }

        var firstRow: [KeyFingerprint: String] = [:]
        var entries: [Entry] = []
        entries.reserveCapacity(records.count)
        for record in records {
            let reference =
                record.reference.flatMap { $0.isEmpty ? nil : $0 }
                ?? "\(configuration.referencePrefix)-\(record.source)"
            switch record.result {
            case .success(let key):
                if let first = firstRow[key.fingerprint] {
                    entries.append(
                        Entry(
                            source: record.source, reference: reference,
                            reject: ("duplicateKey: the same key as \(first)", "duplicate")))
                } else {
                    firstRow[key.fingerprint] = record.source
                    entries.append(Entry(source: record.source, reference: reference, key: key))
                }
            case .failure(let error):
                entries.append(
                    Entry(
                        source: record.source, reference: reference,
                        reject: ("\(error.code.rawValue): \(error.reason)", error.errorClass.rawValue)))
            }
        }
        return entries
    }

    /// Decrypts the keystores of `directory` on the bounded pool, in file order.
    static func decryptAll(directory: String, passwords: PasswordSource) async throws -> [KeyRecord] {
        let listing = try DirectoryListing(directory: directory)
        let pool = KeystoreDecryptionPool()
        return try await withThrowingTaskGroup(of: (Int, KeyRecord).self) { group in
            for (index, entry) in listing.entries.enumerated() {
                group.addTask { (index, try await pool.decryptFile(at: entry.path, passwords: passwords)) }
            }
            var records = [KeyRecord?](repeating: nil, count: listing.entries.count)
            for try await (index, record) in group { records[index] = record }
            return records.compactMap { $0 }
        }
    }

    // MARK: - Import

    func importAll(
        _ entries: [Entry], directory: WalletDirectory, client: WaasClient, verifier: AttestationVerifier
    ) async throws -> [Outcome] {
        var outcomes = [Outcome?](repeating: nil, count: entries.count)
        let limit = configuration.concurrency
        try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
            var next = 0
            var inFlight = 0
            while next < entries.count || inFlight > 0 {
                while inFlight < limit && next < entries.count {
                    let index = next
                    let entry = entries[index]
                    next += 1
                    if let reject = entry.reject {
                        outcomes[index] = .rejected(reason: reject.reason, errorClass: reject.errorClass)
                        continue
                    }
                    inFlight += 1
                    group.addTask {
                        (
                            index,
                            try await Self.importOne(entry, directory: directory, client: client, verifier: verifier)
                        )
                    }
                }
                guard inFlight > 0, let (index, outcome) = try await group.next() else { continue }
                inFlight -= 1
                outcomes[index] = outcome
            }
        }
        return outcomes.map { $0! }
    }

    /// Imports one key, or settles it from the directory when its address is already a wallet.
    static func importOne(_ entry: Entry, directory: WalletDirectory, client: WaasClient, verifier: AttestationVerifier)
        async throws -> Outcome
    {
        guard let key = entry.key else { return .rejected(reason: "no key", errorClass: "validation") }
        if let settled = await settle(entry, key: key, directory: directory) { return settled }
        for attempt in 1...3 {
            do {
                let wallet = try await StaleNonce.retrying {
                    try await client.importWallet(
                        privateKey: key.secret, networkFamily: key.type == .ethereum ? .evm : .solana,
                        reference: entry.reference, verifier: verifier)
                }
                await directory.record(wallet)
                guard WalletDirectory.addressKey(wallet.address) == WalletDirectory.addressKey(key.address) else {
                    return .rejected(reason: "the core's wallet address differs from the key's", errorClass: "service")
                }
                return .imported(wallet)
            } catch let error as WaasError where error.code == .addressAlreadyImported {
                try await directory.refresh()
                if let settled = await settle(entry, key: key, directory: directory) { return settled }
                return .rejected(reason: "addressAlreadyImported: held by another account", errorClass: "duplicate")
            } catch let error as WaasError {
                if error.code.httpStatus >= 500 || error.code.httpStatus == 429, attempt < 3 { continue }
                return .rejected(reason: "\(error.code.name): \(error.message)", errorClass: "service")
            } catch let error as WaasClientError {
                return .rejected(reason: "\(error.code.rawValue): \(error.message)", errorClass: "service")
            } catch {
                guard JobFailure.isInDoubt(error), attempt < 3 else { throw JobFailure.classify(error) }
                try await directory.refresh()
                if let settled = await settle(entry, key: key, directory: directory) { return settled }
            }
        }
        throw ActionError.retryable("import of \(entry.source) did not complete")
    }

    /// The outcome when the key's address is already a wallet: the same import (same reference) or a
    /// duplicate of another wallet; nil when it is not there.
    static func settle(_ entry: Entry, key: ParsedKey, directory: WalletDirectory) async -> Outcome? {
        guard let wallet = await directory.wallet(address: key.address) else { return nil }
        if wallet.reference == entry.reference { return .imported(wallet) }
        return .rejected(
            reason: "duplicateKey: already imported as wallet \(wallet.id) (reference \(wallet.reference ?? "none"))",
            errorClass: "duplicate")
    }
}
