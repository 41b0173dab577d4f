public import WalletCrypto

/// One recovery phrase before validation, with what to derive from it: a data row of a phrase CSV, or a
/// file of a phrase directory with the job's settings. The phrase and passphrase are in secret storage,
/// the other settings text (they are not secret).
public struct PhraseRow: Sendable {
    /// The data row number (CSV, 1-based, blank lines not counted) or the file name (directories): the
    /// records' `source` and the start of their accounts' sources.
    public let source: String
    /// The 1-based line of the file where the row starts (CSV only).
    public let line: Int?
    /// The CSV file's path, or the phrase file's.
    public let file: String
    /// The reference of the row's wallets before `-<i>` when the row has no `reference` (a file's name
    /// without its extension); nil: `<referencePrefix>-<source>`.
    public let defaultReference: String?
    /// The bytes of the `mnemonic` cell, quotes removed.
    public let mnemonic: SecretBytes
    /// The bytes of the `passphrase` cell; nil when the file has no such column (an empty cell is "").
    public let passphrase: SecretBytes?
    /// The `path` cell: a layout name, a path or a template with `{i}`; nil when absent or empty.
    public let path: String?
    /// The `count` cell; nil when absent or empty.
    public let count: String?
    /// The `indices` cell; nil when absent or empty.
    public let indices: String?
    /// The `gap_limit` cell; nil when absent or empty.
    public let gapLimit: String?
    /// The `reference` cell; nil when absent or empty.
    public let reference: String?
    /// The `type` cell; nil when absent or empty.
    public let type: String?
    /// The `expected_address` cell; nil when absent or empty.
    public let expectedAddress: String?
    /// The `subject` cell; nil when absent or empty.
    public let subject: String?
    /// A structural problem of this row (ragged, malformed quote, oversize cell), which refuses it.
    public let problem: KeyFormatError?

    /// A row of a phrase CSV (``CSVKeyReader/nextPhraseRow()``).
    init(
        row: Int, line: Int, file: String, mnemonic: SecretBytes, passphrase: SecretBytes?, path: String?,
        count: String?, indices: String?, gapLimit: String?, reference: String?, type: String?,
        expectedAddress: String?, subject: String?, problem: KeyFormatError?
    ) {
        source = String(row)
        self.line = line
        self.file = file
        defaultReference = nil
        self.mnemonic = mnemonic
        self.passphrase = passphrase
        self.path = path
        self.count = count
        self.indices = indices
        self.gapLimit = gapLimit
        self.reference = reference
        self.type = type
        self.expectedAddress = expectedAddress
        self.subject = subject
        self.problem = problem
    }

    /// The phrase file at `path` (its whole content, at most 4 KiB, read into secret storage), with the
    /// settings a directory's rows share: source the file name, wallets `<fileReference>-<i>` (a
    /// directory's: ``DirectoryListing/Entry/reference``), else `<name without extension>-<i>`.
    /// A file that cannot be read is a row whose records are its refusal.
    public init(
        phraseFile path: String, passphrase: SecretBytes?, derivationPath: String?, count: String?, indices: String?,
        type: String?, fileReference: String? = nil
    ) {
        let name = DirectoryListing.fileName(of: path)
        source = name
        line = nil
        file = path
        defaultReference = fileReference ?? DirectoryListing.defaultReference(forFileName: name)
        var problem: KeyFormatError?
        do {
            mnemonic = try FileInput(path: path).readAll(limit: KeyFile.maximumFileBytes)
        } catch {
            mnemonic = SecretBytes([])
            problem = error
        }
        self.passphrase = passphrase
        self.path = derivationPath
        self.count = count
        self.indices = indices
        gapLimit = nil
        reference = nil
        self.type = type
        expectedAddress = nil
        subject = nil
        self.problem = problem
    }

    /// This row refused for `problem` (a passphrase that could not be read, say).
    public func refused(_ problem: KeyFormatError) -> PhraseRow {
        PhraseRow(copying: self, problem: self.problem ?? problem)
    }

    private init(copying row: PhraseRow, problem: KeyFormatError) {
        source = row.source
        line = row.line
        file = row.file
        defaultReference = row.defaultReference
        mnemonic = row.mnemonic
        passphrase = row.passphrase
        path = row.path
        count = row.count
        indices = row.indices
        gapLimit = row.gapLimit
        reference = row.reference
        type = row.type
        expectedAddress = row.expectedAddress
        subject = row.subject
        self.problem = problem
    }

    /// A number cell quoted when it holds only digits and separators; otherwise its length (a phrase in
    /// the wrong column must not be echoed).
    static func shown(_ cell: String) -> String {
        let plain =
            cell.count <= 32 && cell.utf8.allSatisfy { (0x30...0x39).contains($0) || Array(" ,;-\t".utf8).contains($0) }
        return plain ? "'\(cell)'" : "(\(cell.count) characters, not shown)"
    }

    /// The most accounts one row may ask for (its keys are held at once while its items wait in the feed).
    public static let maximumAccounts = 1000
    /// The gap limit of a scan when neither the row nor the job gives one (BIP-44's account discovery: 20).
    public static let defaultGapLimit = 20

    /// The row's accounts as import records, one per index: source `<row>:<i>`, reference
    /// `<reference>-<i>` (the `reference` cell, else `<referencePrefix>-<row>`). A row that cannot be
    /// read, derived or checked is one refused record with source `<row>`, its error located at the row.
    ///
    /// Defaults: the type is the cell, else the layout's, else `defaultType`; the path is the cell, else
    /// the type's usual layout (`ethereum`, or `phantom` for Solana); the accounts are `count` from index 0
    /// or the `indices` listed, else index 0 alone. With `expected_address` and `count` or `indices`, one of
    /// the accounts must have that address, or the row is refused naming the paths tried.
    ///
    /// A scan: with `expected_address` (one or more addresses, `;` or space apart) and neither `count` nor
    /// `indices`, each address is looked for from index 0 along the row's path, or, with no path, along
    /// every layout of the type, until `gap_limit` indices in a row match none (the cell, else `gapLimit`).
    /// Each address found is one record with source `<row>:<path>` (the path that produced it); the
    /// addresses not found are one refused record (source `<row>`) naming the paths tried.
    public func records(defaultType: KeyType?, referencePrefix: String, gapLimit: Int = defaultGapLimit)
        -> [SecretRecord]
    {
        let source = self.source
        let base = reference ?? defaultReference ?? "\(referencePrefix)-\(source)"
        let refused = { (error: KeyFormatError) in
            SecretRecord(
                source: source, file: file, line: line, reference: base, subject: subject,
                result: .failure(error.located(source: source, file: file, line: line)))
        }
        do throws(KeyFormatError) {
            if isScan {
                let (accounts, missing) = try scan(defaultType: defaultType, gapLimit: gapLimit)
                var records = try accounts.map { (account) throws(KeyFormatError) in
                    try record(account, source: "\(source):\(account.path)", base: base)
                }
                if let missing { records.append(refused(missing)) }
                return records
            }
            return try derive(defaultType: defaultType).map { (account) throws(KeyFormatError) in
                try record(account, source: "\(source):\(account.index)", base: base)
            }
        } catch {
            return [refused(error)]
        }
    }

    private func record(_ account: PhraseAccounts.Account, source: String, base: String) throws(KeyFormatError)
        -> SecretRecord
    {
        let name = "\(base)-\(account.index)"
        try KeyParser.validateReference(name)
        return SecretRecord(
            source: source, file: file, line: line, reference: name, subject: subject, result: .success(account.secret))
    }

    /// Whether the row asks for a scan: expected addresses and no count or indices.
    var isScan: Bool { expectedAddress != nil && count == nil && indices == nil }

    /// The expected addresses of a scan, `;`, `,` or whitespace apart, each once.
    var expectedAddresses: [String] {
        var seen = Set<String>()
        return (expectedAddress ?? "").split(whereSeparator: { $0 == ";" || $0 == "," || $0 == " " || $0 == "\t" })
            .map(String.init).filter { seen.insert($0.lowercased()).inserted }
    }

    /// The scan's accounts found, and the refusal of the addresses not found (nil when all were).
    private func scan(defaultType: KeyType?, gapLimit: Int) throws(KeyFormatError) -> (
        [PhraseAccounts.Account], KeyFormatError?
    ) {
        let (keyType, scheme) = try checkCells(defaultType: defaultType)
        var limit = gapLimit
        if let cell = self.gapLimit {
            guard let value = Int(cell.trimmingASCIIWhitespace()), (1...Self.maximumAccounts).contains(value) else {
                throw KeyFormatError(
                    .invalidIndices,
                    "the gap_limit cell \(Self.shown(cell)) is not a number from 1 to \(Self.maximumAccounts)")
            }
            limit = value
        }
        let expected = expectedAddresses
        guard expected.count <= Self.maximumAccounts else {
            throw KeyFormatError(.invalidIndices, "the row expects more than \(Self.maximumAccounts) addresses")
        }
        let schemes =
            scheme.map { [$0] }
            ?? DerivationScheme.Layout.allCases.filter { $0.keyType == keyType }.map(DerivationScheme.init)
        let seed = try PhraseAccounts.Seed(
            try Mnemonic(phrase: mnemonic), passphrase: passphrase ?? SecretBytes([]), type: keyType)
        let result = try PhraseAccounts.scan(seed, schemes: schemes, expected: expected, gapLimit: limit)
        guard !result.missing.isEmpty else { return (result.found.map(\.account), nil) }
        let names = result.missing.joined(separator: ", ")
        let tried = zip(schemes, result.tried).map { "\($0.0) (\($0.1))" }.joined(separator: ", ")
        return (
            result.found.map(\.account),
            KeyFormatError(
                .expectedAddressMismatch,
                "\(result.missing.count == 1 ? "the expected address" : "the expected addresses") \(names) "
                    + "\(result.missing.count == 1 ? "is" : "are") on no path tried: \(tried), gap limit \(limit); "
                    + "check the passphrase and the path")
        )
    }

    /// How many records ``records(defaultType:referencePrefix:)`` gives, from the text cells alone (no
    /// phrase work): for the progress line's total.
    public var recordCount: Int {
        guard problem == nil else { return 1 }
        if isScan { return max(1, expectedAddresses.count) }
        guard let indices = try? accountIndices() else { return 1 }
        return indices.count
    }

    /// The row's structure, type, reference and path checked: its key type and path (nil: the default).
    private func checkCells(defaultType: KeyType?) throws(KeyFormatError) -> (KeyType, DerivationScheme?) {
        if let problem { throw problem }
        let scheme = try path.map { (text) throws(KeyFormatError) in try DerivationScheme(parsing: text) }
        let keyType: KeyType
        if let cell = type {
            guard let parsed = KeyType(cell: cell) else {
                throw KeyFormatError(.unknownType, "the type cell must be ethereum (or evm) or solana")
            }
            keyType = parsed
        } else if let layout = scheme?.layout {
            keyType = layout.keyType
        } else if let defaultType {
            keyType = defaultType
        } else {
            throw KeyFormatError(
                .unknownType,
                "no type: the row has no type cell, its path is not a layout, and no default type was given")
        }
        if let reference { try KeyParser.validateReference(reference) }
        return (keyType, scheme)
    }

    private func derive(defaultType: KeyType?) throws(KeyFormatError) -> [PhraseAccounts.Account] {
        let (keyType, scheme) = try checkCells(defaultType: defaultType)
        let indices = try accountIndices()
        let mnemonic = try Mnemonic(phrase: mnemonic)
        let chosen = scheme ?? DerivationScheme(keyType == .ethereum ? .ethereum : .phantom)
        let accounts = try PhraseAccounts.derive(
            mnemonic, passphrase: passphrase ?? SecretBytes([]), type: keyType, scheme: chosen, indices: indices)
        if let expectedAddress {
            try Self.check(expectedAddress, among: accounts, scheme: chosen)
        }
        return accounts
    }

    /// Throws unless one of `accounts` has `expected`.
    static func check(_ expected: String, among accounts: [PhraseAccounts.Account], scheme: DerivationScheme)
        throws(KeyFormatError)
    {
        for account in accounts {
            do {
                try KeyParser.checkExpectedAddress(expected, of: account.secret)
                return
            } catch let error where error.code == .expectedAddressMismatch {
                continue
            }
        }
        let tried =
            accounts.count == 1
            ? accounts[0].path.description
            : "\(accounts.count) paths, \(accounts[0].path) to \(accounts[accounts.count - 1].path)"
        throw KeyFormatError(
            .expectedAddressMismatch,
            "no account along \(scheme) has the expected address \(expected) (tried \(tried)); check the path, the "
                + "indices and the passphrase")
    }

    /// The indices of `count` or `indices` (index 0 when neither is given).
    public func accountIndices() throws(KeyFormatError) -> [UInt32] {
        try Self.accountIndices(count: count, indices: indices)
    }

    /// The indices of a `count` or an `indices` setting (index 0 when neither is given).
    ///
    /// - Throws: `KeyFormatError.invalidIndices` for both, or for one that cannot be read.
    public static func accountIndices(count: String?, indices: String?) throws(KeyFormatError) -> [UInt32] {
        switch (count, indices) {
        case (.some, .some):
            throw KeyFormatError(.invalidIndices, "the row gives both count and indices; give one")
        case (let count?, nil):
            guard let value = Int(count.trimmingASCIIWhitespace()), (1...Self.maximumAccounts).contains(value) else {
                throw KeyFormatError(
                    .invalidIndices,
                    "the count cell \(Self.shown(count)) is not a number from 1 to \(Self.maximumAccounts)")
            }
            return (0..<UInt32(value)).map { $0 }
        case (nil, let list?):
            return try Self.parseIndices(list)
        case (nil, nil):
            return [0]
        }
    }

    /// `0-4;7`, `0,1,2` (quoted in CSV) or `0 1 2`: indices and inclusive ranges below 2^31, in the order
    /// given, each once.
    static func parseIndices(_ text: String) throws(KeyFormatError) -> [UInt32] {
        var result: [UInt32] = []
        var seen = Set<UInt32>()
        let items = text.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == " " || $0 == "\t" })
        guard !items.isEmpty else { throw KeyFormatError(.invalidIndices, "the indices cell lists no index") }
        for item in items {
            let bounds = item.split(separator: "-", omittingEmptySubsequences: false)
            let numbers = bounds.map { UInt32($0) }
            guard bounds.count <= 2, numbers.allSatisfy({ $0.map { $0 < DerivationPath.hardenedOffset } ?? false }),
                let low = numbers.first!, let high = numbers.last!, low <= high
            else {
                throw KeyFormatError(
                    .invalidIndices,
                    "the indices cell: \(Self.shown(String(item))) is not an index or a range a-b of indices below 2^31"
                )
            }
            guard Int(high - low) < Self.maximumAccounts else {
                throw KeyFormatError(
                    .invalidIndices, "the indices cell asks for more than \(Self.maximumAccounts) accounts")
            }
            for index in low...high where seen.insert(index).inserted {
                result.append(index)
                if result.count > Self.maximumAccounts {
                    throw KeyFormatError(
                        .invalidIndices, "the indices cell asks for more than \(Self.maximumAccounts) accounts")
                }
            }
        }
        return result
    }
}
