import Foundation
import KeyFormats
import OMSProtocol
import Playbook
import Runner

extension ActionRegistry {
    /// The actions playbooks may use: the built-ins plus the jobs of docs/jobs.md
    /// (`jobs.create-wallets`, `wallet.create`, `jobs.write-wallets`, `jobs.import-keys`,
    /// `jobs.reconcile-keys`, `jobs.reconcile-summary`, `jobs.revoke-select`, `jobs.revoke-grants`,
    /// `jobs.usage-sessions`, `jobs.session-usage`, `jobs.usage-report`). Every run command and `validate`
    /// read it.
    public static var jobs: ActionRegistry {
        var registry = ActionRegistry.builtIn
        registry.registerJobs()
        return registry
    }

    /// Registers the jobs' actions. Factories only read parameters: nothing is opened until a run.
    public mutating func registerJobs() {
        register("jobs.create-wallets") { request in
            let services = request.services
            try request.requireForEach(
                "a range input (1..count) or a CSV input with a reference column (see jobs/create-wallets.yaml)")
            let coreURL = try request.coreURL()
            return CreateWalletsAction(
                .init(
                    type: try request.walletType(), output: try request.requiredPath("output"),
                    referencePrefix: try request.text("reference_prefix").flatMap { $0.isEmpty ? nil : $0 } ?? "wallet"
                )
            ) { try services.client(coreURL: coreURL) }
        }
        register("wallet.create") { request in
            let step = request.step
            let nonItem = request
            let services = request.services
            let coreURL = try request.coreURL()
            return WalletCreateAction(
                type: try request.walletType(),
                reference: { item in
                    guard let reference = try nonItem.parameters(item: item)["reference"]?.description,
                        !reference.isEmpty
                    else { throw ActionError.rejected("step '\(step.id)': the item has no reference") }
                    return reference
                }, client: { try services.client(coreURL: coreURL) })
        }
        register("jobs.write-wallets") { request in
            let input = try request.requiredPath("input")
            let services = request.services
            let coreURL = try request.coreURL()
            return WriteWalletsAction(
                output: try request.requiredPath("output"),
                references: { try CSVFile.read(path: input).compactMap { $0["reference"] }.filter { !$0.isEmpty } },
                client: { try services.client(coreURL: coreURL) })
        }
        register("jobs.import-keys") { request in
            let configuration = try request.importConfiguration()
            request.warnOfIgnoredColumns(configuration)
            return ImportKeysAction(configuration, services: request.services)
        }
        register("jobs.reconcile-keys") { request in
            let services = request.services
            let configuration = try request.importConfiguration()
            guard configuration.perUser == nil else {
                throw ActionSetupError.usage(
                    "step '\(request.step.id)' (jobs.reconcile-keys): the per-user mode is not reconciled (each "
                        + "subject's wallets are in its own account); reconcile the shared mode's imports")
            }
            let coreURL = configuration.coreURL
            return ReconcileKeysAction(configuration, keystoreDecryption: services.keystoreDecryption) {
                try services.client(coreURL: coreURL)
            }
        }
        register("jobs.reconcile-summary") { request in
            let services = request.services
            let coreURL = try request.coreURL()
            return ReconcileSummaryAction(
                output: try request.requiredPath("output"), summary: try request.requiredPath("summary")
            ) { try services.client(coreURL: coreURL) }
        }
        register("jobs.revoke-select") { request in
            let services = request.services
            let step = request.step.id
            var olderThan: Int64?
            if let text = try request.text("older_than"), !text.isEmpty {
                guard let duration = DurationText.parse(text) else {
                    throw ActionSetupError.usage("step '\(step)': older_than '\(text)' is not a duration (e.g. 7d)")
                }
                olderThan = duration.components.seconds
            }
            var type: CredentialType?
            if let text = try request.text("type"), !text.isEmpty {
                guard text == "direct" || text == "remote" else {
                    throw ActionSetupError.usage("step '\(step)': type must be direct or remote")
                }
                type = text == "direct" ? .direct : .remote
            }
            guard let selection = RevokeSelectAction.Selection(rawValue: try request.text("select") ?? "expired") else {
                throw ActionSetupError.usage(
                    "step '\(step)': select must be expired, non-caller or expired-or-non-caller")
            }
            let coreURL = try request.coreURL()
            return RevokeSelectAction(
                .init(
                    mode: try request.revokeMode(), selection: selection, appName: try request.text("app_name"),
                    olderThan: olderThan, type: type, maxRevocations: try request.integer("max_revocations") ?? 100,
                    output: try request.requiredPath("output"), concurrency: try request.integer("concurrency") ?? 8)
            ) { try services.client(coreURL: coreURL) }
        }
        register("jobs.revoke-grants") { request in
            let services = request.services
            try request.requireForEach("the grants a jobs.revoke-select step selected (see jobs/revoke-sweep.yaml)")
            let coreURL = try request.coreURL()
            return RevokeGrantsAction(mode: try request.revokeMode(), output: try request.requiredPath("output")) {
                try services.client(coreURL: coreURL)
            }
        }
        register("demo.seed") { request in
            let services = request.services
            let coreURL = try request.coreURL()
            return SeedDemoAction(transfersPath: try request.path("transfers")) {
                try services.session(coreURL: coreURL)
            }
        }
        register("jobs.usage-report") { request in
            var formats: [String] = ["csv", "json", "md", "html"]
            if let parameter = request.step.with["formats"] {
                switch try parameter.evaluate(in: request.context) {
                case .list(let values): formats = values.map(\.description)
                case let value:
                    formats = value.description.split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespaces)
                    }
                }
            }
            for format in formats where !["csv", "json", "md", "html"].contains(format) {
                throw ActionSetupError.usage(
                    "step '\(request.step.id)': format '\(format)' is not csv, json, md or html")
            }
            return UsageReportAction(
                .init(
                    outputDirectory: try request.requiredPath("output_dir"), formats: formats,
                    nearLimit: try request.integer("near_limit") ?? 80, period: try request.periodSettings()))
        }
        register("jobs.usage-sessions") { request in
            let services = request.services
            let coreURL = try request.coreURL()
            let period = try request.periodSettings()
            return UsageSessionsAction(concurrency: try request.integer("concurrency") ?? 8, period: period) {
                try services.client(coreURL: coreURL)
            }
        }
        register("jobs.session-usage") { request in
            let services = request.services
            try request.requireForEach("the sessions a jobs.usage-sessions step listed (see jobs/usage-report.yaml)")
            let coreURL = try request.coreURL()
            var tokens = TokenList()
            if let path = try request.path("token_list") {
                // Read when the run is planned: a bad list stops it before any request (exit 65, 66 or 74).
                do throws(JobsError) { tokens = try TokenList.load(path: path) } catch {
                    throw ActionSetupError(error.message, inputProblem: error.inputProblem ?? .invalidData)
                }
            }
            return SessionUsageAction(outputDirectory: try request.requiredPath("output_dir"), tokens: tokens) {
                try services.client(coreURL: coreURL)
            }
        }
    }
}

extension ActionRequest {
    /// Refuses a step without `for_each`: its action works on the rows `items` describes.
    func requireForEach(_ items: String) throws(ActionSetupError) {
        guard step.forEach != nil else {
            throw ActionSetupError.usage("step '\(step.id)' (\(step.action)) needs for_each: \(items)")
        }
    }

    /// The usage report's `period`, `since` and `until`, checked when the run is planned (and by
    /// `validate`), so a bad period stops the run before any request (exit 64).
    func periodSettings() throws -> UsageSessionsAction.PeriodSettings {
        let period = UsageSessionsAction.PeriodSettings(
            period: try text("period") ?? "", since: try text("since") ?? "", until: try text("until") ?? "")
        do { _ = try period.resolve(now: Int64(Date().timeIntervalSince1970)) } catch {
            throw ActionSetupError.usage("step '\(step.id)' (\(step.action)): \(error.message)")
        }
        return period
    }

    /// An integer parameter, or nil when absent or empty.
    func integer(_ name: String) throws -> Int? {
        guard let text = try text(name), !text.isEmpty else { return nil }
        guard let value = Int(text) else {
            throw ActionSetupError.usage("step '\(step.id)' (\(step.action)): with.\(name) '\(text)' is not an integer")
        }
        return value
    }

    /// The `mode` parameter of the revoke sweep's steps (default plan).
    func revokeMode() throws -> RevokeSelectAction.Mode {
        guard let mode = RevokeSelectAction.Mode(rawValue: try text("mode") ?? "plan") else {
            throw ActionSetupError.usage("step '\(step.id)': mode must be plan or apply")
        }
        return mode
    }

    /// The `type` parameter as a wallet type: absent or empty is ethereum, else `KeyType(cell:)`'s spellings
    /// (ethereum, evm, solana; any case, trimmed).
    func walletType() throws -> WalletType {
        let text = try text("type") ?? ""
        if text.isEmpty { return .ethereum }
        // Read as the import's `type` column is: one spelling of each key type for the whole tool.
        guard let type = KeyType(cell: text) else {
            throw ActionSetupError.usage("step '\(step.id)': type '\(text)' is not ethereum or solana")
        }
        return WalletType(type)
    }

    /// The served core of the job, or nil for the embedded core. Precedence: the run command's `--core`
    /// (``core``), then the step's `core` parameter (the jobs pass `--var core=URL`), then
    /// `$WALLETOPS_CORE`; an empty value counts as absent.
    func coreURL() throws -> URL? {
        if let core { return core }
        do {
            return try JobSession.coreURL(parameter: try text("core"), environment: context.env)
        } catch let error as JobsError {
            throw ActionSetupError.usage("step '\(step.id)': \(error.message)")
        }
    }
}

extension ActionRequest {
    /// The import's input and format options from the step's parameters (`input`, `format`, `type`,
    /// `password_env`, `password_file`, `reference_prefix`, `gap_limit`, `path`, `count`, `indices`, the
    /// per-user settings, `output`, `rejects`, `concurrency`, `batch`, `core`, `attestation_root`): one
    /// reading for `jobs.import-keys` and `jobs.reconcile-keys`, so both take an input the same way.
    func importConfiguration() throws -> ImportKeysAction.Configuration {
        let request = self
        let formatText = try request.requiredText("format")
        guard let format = ImportKeysAction.Format(rawValue: formatText) else {
            throw ActionSetupError.usage(
                "step '\(request.step.id)': format '\(formatText)' is not one of "
                    + ImportKeysAction.Format.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var passwords: PasswordSource?
        if let name = try request.text("password_env"), !name.isEmpty { passwords = .environment(name) }
        if let path = try request.text("password_file"), !path.isEmpty { passwords = .file(path) }
        let typeText = try request.text("type") ?? ""
        var type: KeyFormats.KeyType?
        if !typeText.isEmpty {
            guard let parsed = KeyFormats.KeyType(cell: typeText) else {
                throw ActionSetupError.usage("step '\(request.step.id)': type '\(typeText)' is not ethereum or solana")
            }
            type = parsed
        }
        var perUser: ImportKeysAction.PerUser?
        if let issuer = try request.text("user_issuer"), !issuer.isEmpty {
            do {
                perUser = try ImportKeysAction.PerUser(
                    issuer: issuer, audience: try request.text("user_audience"),
                    keyFile: try request.text("user_key_file") ?? "", keyID: try request.text("user_key_id") ?? "")
            } catch let error as JobsError {
                throw ActionSetupError.usage("step '\(request.step.id)': \(error.message)")
            }
            guard format.isCSV else {
                throw ActionSetupError.usage(
                    "step '\(request.step.id)': per-user mode (user_issuer) needs a CSV input with a subject "
                        + "column, not format \(format.rawValue)")
            }
        }
        var configuration = ImportKeysAction.Configuration(
            input: try request.requiredText("input"), format: format, type: type, passwords: passwords,
            output: try request.requiredPath("output"), rejects: try request.requiredPath("rejects"),
            referencePrefix: try request.text("reference_prefix").flatMap { $0.isEmpty ? nil : $0 } ?? "import",
            concurrency: try request.integer("concurrency") ?? 0,
            batchSize: try request.integer("batch") ?? 0, coreURL: try request.coreURL(),
            attestationRoot: try request.text("attestation_root"), perUser: perUser,
            inputLocation: try request.requiredPath("input"))
        if let gapLimit = try request.integer("gap_limit"), gapLimit != 0 {
            guard (1...PhraseRow.maximumAccounts).contains(gapLimit) else {
                throw ActionSetupError.usage(
                    "step '\(request.step.id)': gap_limit \(gapLimit) is not from 1 to \(PhraseRow.maximumAccounts)"
                )
            }
            configuration.gapLimit = gapLimit
        }
        if let text = try request.text("columns"), !text.isEmpty {
            guard format.isCSV else {
                throw ActionSetupError.usage(
                    "step '\(request.step.id)': columns maps CSV headers, not format \(format.rawValue)")
            }
            for pair in text.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, !parts[1].isEmpty, let column = CSVKeyReader.Column(rawValue: parts[0]) else {
                    throw ActionSetupError.usage(
                        "step '\(request.step.id)': columns '\(pair)' is not column=header with a column among "
                            + CSVKeyReader.Column.allCases.map(\.rawValue).joined(separator: ", "))
                }
                configuration.columnNames[column] = parts[1]
            }
        }
        let setting = { (name: String) throws -> String? in try request.text(name).flatMap { $0.isEmpty ? nil : $0 } }
        configuration.phrases = .init(
            path: try setting("path"), count: try setting("count"), indices: try setting("indices"))
        if format == .mnemonicDirectory {
            do throws(KeyFormatError) {
                _ = try PhraseRow.accountIndices(
                    count: configuration.phrases.count, indices: configuration.phrases.indices)
                if let path = configuration.phrases.path { _ = try DerivationScheme(parsing: path) }
            } catch {
                throw ActionSetupError.usage("step '\(request.step.id)': \(error.reason)")
            }
        }
        return configuration
    }
}

extension ActionRequest {
    /// Warns of the CSV input's columns the import does not read (a `label` or `address` column of an
    /// export), naming how to map them. Silent when the file cannot be opened: the run says why.
    func warnOfIgnoredColumns(_ configuration: ImportKeysAction.Configuration) {
        guard configuration.format.isCSV,
            let reader = try? CSVKeyReader(
                path: configuration.inputLocation, kind: configuration.format == .mnemonicCSV ? .phrases : .keys,
                columnNames: configuration.columnNames),
            !reader.ignoredColumns.isEmpty
        else { return }
        let names = reader.ignoredColumns.map { $0.isEmpty ? "(empty)" : $0 }.joined(separator: ", ")
        warn(
            "input \(configuration.input): column\(reader.ignoredColumns.count == 1 ? "" : "s") \(names) "
                + "not read; map an export's names with --var columns=reference=label,expected_address=address")
    }
}
