import Foundation
import KeyFormats
import OMSProtocol
import Runner
import WalletCrypto

/// `jobs.import-keys`: a chunk action over the rows (or files) of a legacy input; each row's key goes
/// through the attested transport, and the step's sinks are `output`
/// (`source,reference,wallet_id,type,address,key_origin`) and `rejects` (`source,reason,error_class`).
///
/// Design (docs/jobs.md "import-keys"): the action reads its own input as the step's items
/// (``ImportItems``: a CSV row is validated as it is read and its key rides with the item in wiped
/// memory, never in a field; a file is read, and a keystore decrypted on the shared
/// ``KeystoreDecryptionPool``, inside the chunk). Before a chunk is sent, its keys are admitted in input
/// order (``ChunkContext/inInputOrder(_:)``): a key already held by an earlier row still in flight is a
/// duplicate of that row, so the first row with a key wins whatever the concurrency; once a chunk is
/// answered its keys leave the window and the core decides later copies (an address held with another
/// reference is a duplicate). The core is the probe: a key whose address is already a wallet with the
/// row's reference is the same import (success), so the action is idempotent and a resumed run sends only
/// what was in flight. In the per-user mode (``PerUser``) each row's key goes into the account of its
/// `subject` (``ImportTransport/perUser(signIn:verifier:gate:subjectsInParallel:setUpHint:)``).
public struct ImportKeysAction: ChunkAction {
    /// The input formats (public contract names).
    public enum Format: String, Sendable, CaseIterable {
        case hexCSV = "hex-csv"
        case base58CSV = "base58-csv"
        /// A CSV of BIP-39 recovery phrases, each row expanded into its derived accounts.
        case mnemonicCSV = "mnemonic-csv"
        /// A directory of phrase files (one BIP-39 phrase each), each expanded into the accounts of
        /// ``Configuration/phrases``.
        case mnemonicDirectory = "mnemonic-dir"
        case keystoreDirectory = "keystore-dir"
        case solanaJSONDirectory = "solana-json-dir"
        case rawDirectory = "raw-dir"

        /// A CSV format: rows (keys or phrases) with per-row cells such as `subject`.
        public var isCSV: Bool { self == .hexCSV || self == .base58CSV || self == .mnemonicCSV }
    }

    /// The per-user mode (docs/jobs.md "Per-user mode"): each row's key goes into the account of the
    /// row's `subject`, signed in with an ID token of an app-owned issuer the project trusts.
    public struct PerUser: Sendable {
        /// The issuer (the tokens' `iss`), exactly as `walletops core trust-issuer --issuer` trusted it.
        public var issuer: String
        /// The tokens' `aud`; nil: the audience the embedded core trusts `issuer` with.
        public var audience: String?
        /// The path of the issuer's PKCS#8 PEM signing key (never the key itself).
        public var keyFile: String
        /// The `kid` the project trusts the key under.
        public var keyID: String

        /// A per-user setting.
        ///
        /// - Throws: `JobsError.invalidInput` when the issuer, key file or kid is empty, or when `keyFile`
        ///   holds PEM text instead of a path (the message never repeats the value).
        public init(issuer: String, audience: String?, keyFile: String, keyID: String) throws {
            guard !issuer.isEmpty else { throw JobsError(.invalidInput, "per-user mode needs user_issuer") }
            guard !keyFile.isEmpty else {
                throw JobsError(.invalidInput, "per-user mode needs user_key_file (the issuer's PEM signing key file)")
            }
            guard !Self.looksLikeKeyText(keyFile) else {
                throw JobsError(
                    .invalidInput,
                    "user_key_file must be the path of a PEM file, not the key itself (the value is not shown)")
            }
            guard !keyID.isEmpty else {
                throw JobsError(.invalidInput, "per-user mode needs user_key_id (the kid the project trusts)")
            }
            self.issuer = issuer
            self.audience = audience.flatMap { $0.isEmpty ? nil : $0 }
            self.keyFile = keyFile
            self.keyID = keyID
        }

        /// PEM text (a `-----BEGIN` line or a line break) where a path belongs.
        static func looksLikeKeyText(_ value: String) -> Bool {
            value.contains("-----BEGIN") || value.contains("-----END") || value.contains("\n")
                || value.contains("\r")
        }
    }

    /// What to import.
    public struct Configuration: Sendable {
        /// The input file or folder as the playbook names it, in messages and the rejects' `file`.
        public var input: String
        /// The input to open: `input` with a relative path resolved in the run's folder
        /// (``JobServices/path(_:)``), never the process's working directory.
        public var inputLocation: String
        public var format: Format
        /// The key type when the format leaves it open (CSV rows without `type`, raw files).
        public var type: KeyType?
        /// Where keystore passwords come from.
        public var passwords: PasswordSource?
        public var output: String
        public var rejects: String
        /// References of CSV rows without one: `<prefix>-<row>`.
        public var referencePrefix: String
        /// `mnemonic-csv`: the gap limit of a row's scan for its expected addresses (its `gap_limit` cell
        /// overrides it).
        public var gapLimit = PhraseRow.defaultGapLimit
        /// `mnemonic-dir`: the accounts of every phrase file, as the columns of a phrase CSV would give them.
        public var phrases = PhraseSettings()
        /// A CSV export's own header names for the columns it calls otherwise (`columns`:
        /// `private_key=privkey,reference=label`).
        public var columnNames: [CSVKeyReader.Column: String] = [:]

        /// What `mnemonic-dir` derives from each file (nil: the phrase CSV's default).
        public struct PhraseSettings: Sendable {
            /// A layout, a path or a template with `{i}`.
            public var path: String?
            /// Accounts 0 to count-1.
            public var count: String?
            /// The accounts listed (`0-4;7`).
            public var indices: String?

            public init(path: String? = nil, count: String? = nil, indices: String? = nil) {
                self.path = path
                self.count = count
                self.indices = indices
            }
        }
        /// Batches in flight (between reading and writing).
        public var concurrency: Int
        /// Per-user mode: subjects signed in and imported at once.
        public var subjectsInParallel: Int
        /// Rows per batch.
        public var batchSize: Int

        /// Rows in flight when the playbook leaves `parallel` at 0: the import's memory is about that many
        /// rows' keys, requests and replies, so it is the same at 10,000 rows as at 1,000,000 (docs/bench.md
        /// "Import scaling").
        public static let defaultRowsInFlight = 12_000

        /// Chunks in flight when the playbook leaves `parallel` at 0: ``defaultRowsInFlight`` rows with the
        /// chunk the engine's feed holds beside them, at least 2 chunks and at most 8 (3 of 3,000); for
        /// keystore files, the decryption pool's slots (one file each, so every slot is busy).
        public static func defaultConcurrency(batchSize: Int, format: Format? = nil) -> Int {
            if format == .keystoreDirectory && batchSize == 1 {
                return KeystoreDecryptionPool.Configuration.automatic().maxConcurrent
            }
            return max(2, min(8, defaultRowsInFlight / max(batchSize, 1) - 1))
        }

        /// Rows per chunk when the playbook leaves `batch` at 0: 3,000 (one ImportWallets request, the two
        /// attestations it pays spread thin; docs/jobs.md "Performance"), but one keystore file per chunk:
        /// each costs a scrypt of about half a second, so a chunk is committed as soon as its file is
        /// imported, and a killed run decrypts again at most the files that were in the pool's slots.
        public static func defaultBatchSize(for format: Format) -> Int {
            format == .keystoreDirectory ? 1 : 3_000
        }
        public var coreURL: URL?
        /// The development attestation root to pin (default: the home's `attestation-root.pem`).
        public var attestationRoot: String?
        /// The per-user mode; nil: every key goes into the signed-in account.
        public var perUser: PerUser?

        /// Creates a configuration.
        public init(
            input: String, format: Format, type: KeyType?, passwords: PasswordSource?, output: String,
            rejects: String, referencePrefix: String = "import", concurrency: Int = 0, batchSize: Int = 0,
            coreURL: URL? = nil, attestationRoot: String? = nil, perUser: PerUser? = nil, inputLocation: String? = nil
        ) {
            self.input = input
            self.inputLocation = inputLocation ?? input
            self.format = format
            self.type = type
            self.passwords = passwords
            self.output = output
            self.rejects = rejects
            self.referencePrefix = referencePrefix
            self.batchSize = batchSize > 0 ? batchSize : Self.defaultBatchSize(for: format)
            self.concurrency =
                concurrency > 0 ? concurrency : Self.defaultConcurrency(batchSize: self.batchSize, format: format)
            subjectsInParallel = concurrency > 0 ? concurrency : 8
            self.coreURL = coreURL
            self.attestationRoot = attestationRoot
            self.perUser = perUser
        }
    }

    /// The output header (public contract).
    public static let outputHeader = ["source", "reference", "wallet_id", "type", "address", "key_origin"]
    /// The rejects header (public contract).
    public static let rejectsHeader = ["source", "reason", "error_class"]

    public let configuration: Configuration
    /// The transport, made by ``prepare()`` or the first chunk (tests hand one in).
    let transport: MadeOnce<ImportTransport>
    /// The keys admitted and not yet answered, by keyed fingerprint: the duplicate window.
    let window = ImportWindow()
    /// Where keystores are decrypted (shared by the step's chunks).
    let pool: KeystoreDecryptionPool

    /// An action for `configuration` against the signed-in core of the running command (`services`).
    public init(_ configuration: Configuration, services: JobServices) {
        self.configuration = configuration
        transport = MadeOnce { try await Self.makeTransport(configuration, services: services) }
        items = ImportItems.source(configuration)
        pool = KeystoreDecryptionPool(configuration: services.keystoreDecryption)
    }

    /// An action for `configuration` that sends through `transport` (tests: a fake core).
    init(_ configuration: Configuration, transport: ImportTransport) {
        self.configuration = configuration
        self.transport = MadeOnce { transport }
        items = ImportItems.source(configuration)
        pool = KeystoreDecryptionPool()
    }

    public var name: String { "jobs.import-keys" }
    public var isSideEffecting: Bool { true }
    public var isIdempotent: Bool { true }
    public var defaultBatch: Int { configuration.batchSize }
    public var defaultConcurrency: Int? { configuration.concurrency }
    /// The input's rows or files (counted once, for the progress line's total).
    public let items: ItemSource?
    public var inputPaths: [String] { [configuration.input] }
    /// Opens the core and signs in (the transport) while the engine reads the input.
    public func prepare() async { _ = try? await transport.get() }

    public var sinks: [OutputSink] {
        [
            OutputSink(path: configuration.output, header: Self.outputHeader) { record in
                guard record.state == .succeeded, let id = record.outputs["wallet_id"] else { return nil }
                let outputs = record.outputs
                return [
                    record.fields["source"] ?? "", outputs["reference"] ?? "", id, outputs["type"] ?? "",
                    outputs["address"] ?? "", outputs["key_origin"] ?? "",
                ]
            },
            OutputSink(path: configuration.rejects, header: Self.rejectsHeader) { Self.rejectsRow($0) },
        ]
    }

    /// The rejects file's row of a rejected row, or of one the engine gave up on (the core kept failing
    /// it: listed, so no row goes unexplained); nil for any other row.
    static func rejectsRow(_ record: SinkRecord) -> [String]? {
        switch record.state {
        case .rejected:
            return [record.fields["source"] ?? "", record.message ?? "", record.outputs["error_class"] ?? ""]
        case .failed:
            return [record.fields["source"] ?? "", record.message ?? "", record.errorClass ?? "failed"]
        default:
            return nil
        }
    }

    /// The transport of the running command's signed-in session (per-user: one sign-in per subject).
    static func makeTransport(_ configuration: Configuration, services: JobServices) async throws -> ImportTransport {
        let session = try services.session(coreURL: configuration.coreURL)
        let verifier = try session.attestationVerifier(rootPEMPath: configuration.attestationRoot)
        guard let perUser = configuration.perUser else {
            return ImportTransport.automatic(client: session.client, verifier: verifier)
        }
        try Self.checkPerUserFormat(configuration)
        let audience = try await Self.audience(perUser, session: session)
        let issuer = try AppIssuer(
            issuer: perUser.issuer, audience: audience, keyID: perUser.keyID, pemFile: perUser.keyFile)
        let signIn = SubjectSignIn(
            issuer: issuer, connection: session.connection,
            publishableKey: try PublishableKey(session.credential.publishableKey))
        let hint =
            "does the project trust user_issuer \(perUser.issuer) with audience \(audience) and kid \(perUser.keyID)? "
            + "(walletops core trust-issuer --issuer \(perUser.issuer) --audience \(audience) "
            + "--jwks-from-pem <user_key_file> --kid \(perUser.keyID))"
        return ImportTransport.perUser(
            signIn: signIn, verifier: verifier, gate: KeyedSerialGate(),
            subjectsInParallel: configuration.subjectsInParallel, setUpHint: hint)
    }

    /// Per-user mode reads the subject of each row: CSV input only.
    static func checkPerUserFormat(_ configuration: Configuration) throws {
        guard configuration.perUser != nil, !configuration.format.isCSV else { return }
        throw ActionError.permanent(
            "per-user mode (user_issuer) needs a CSV input with a subject column: format \(configuration.format.rawValue) "
                + "has no per-row subject; import each user's directory in the shared mode instead")
    }

    /// The tokens' audience: `user_audience`, else the one audience the core trusts the issuer with
    /// (`WaasPublic/GetTrustedAudiences`, the project's public configuration). An issuer the project does
    /// not trust (with that audience) ends the run before any sign-in, against an embedded and a served
    /// core alike.
    static func audience(_ perUser: PerUser, session: JobSession) async throws -> String {
        let trusted = try await session.client.call(
            .getTrustedAudiences, GetTrustedAudiencesRequest(issuer: perUser.issuer),
            as: GetTrustedAudiencesResponse.self
        ).audiences
        let setUp =
            "walletops core trust-issuer --issuer \(perUser.issuer) --audience AUD --jwks-from-pem <user_key_file> "
            + "--kid \(perUser.keyID)"
        if let audience = perUser.audience {
            guard trusted.contains(audience) else {
                throw ActionError.permanent(
                    "project \(session.credential.projectId) does not trust user_issuer \(perUser.issuer) with audience "
                        + "\(audience)\(trusted.isEmpty ? "" : " (trusted: \(trusted.joined(separator: ", ")))"): \(setUp)"
                )
            }
            return audience
        }
        switch trusted.count {
        case 1: return trusted[0]
        case 0:
            throw ActionError.permanent(
                "project \(session.credential.projectId) does not trust user_issuer \(perUser.issuer): \(setUp)")
        default:
            throw ActionError.permanent(
                "user_issuer \(perUser.issuer) is trusted with several audiences (\(trusted.joined(separator: ", "))): "
                    + "set user_audience")
        }
    }

}
