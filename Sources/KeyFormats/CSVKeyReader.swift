import TextFormats
import WalletCrypto

/// Streams a CSV file of private keys (RFC 4180), one row at a time, with memory that does not grow
/// with the file.
///
/// The first non-blank record is the header: it must have a `private_key` column and may have
/// `reference`, `type` and `expected_address` (names trimmed, any case; other columns are ignored). A
/// file of recovery phrases (``Kind/phrases``) has a `mnemonic` column instead, and may have `passphrase`,
/// `path`, `count` and `indices`; its secret cells are the phrase and the passphrase.
/// Fields may be quoted (`"a,b"`, `""` for a quote, newlines inside quotes); records end with LF,
/// CRLF or CR; a UTF-8 byte order mark is skipped; blank lines are skipped and not counted as rows.
/// An empty cell means absent. A row whose field count differs from the header's is refused (a
/// stray comma would otherwise shift a key into another column).
///
/// Secrets: the file is read in fixed chunks that are wiped before each refill; a secret cell's bytes
/// (the key; the phrase and the passphrase) go from the chunk straight into a fixed scratch buffer (wiped
/// after each row) and then into `SecretBytes`; they never become a Swift `String`. The secret columns of
/// the other kind are ignored, never kept. The other cells become `String`s (they are not
/// secret). What cannot be wiped: the kernel's page cache of the file.
///
/// Confined to one task (not Sendable).
public final class CSVKeyReader {
    /// The header names this reader understands.
    public enum Column: String, Sendable, CaseIterable {
        case privateKey = "private_key"
        case reference
        case type
        case expectedAddress = "expected_address"
        /// The user whose account receives the row's key (the import job's per-user mode).
        case subject
        /// A BIP-39 recovery phrase (secret; phrase files only).
        case mnemonic
        /// The phrase's BIP-39 passphrase (secret; phrase files only).
        case passphrase
        /// A layout name, a derivation path or a path template with `{i}` (phrase files only).
        case path
        /// How many accounts from index 0 (phrase files only).
        case count
        /// Which account indices, such as `0-4;7` (phrase files only).
        case indices
        /// How many unused indices in a row end a scan for expected addresses (phrase files only).
        case gapLimit = "gap_limit"

        /// The index of this column's cell buffer (text columns) or secret scratch buffer (secret ones).
        var slot: Int {
            switch self {
            case .privateKey, .mnemonic: 0
            case .passphrase: 1
            case .reference: 1
            case .type: 2
            case .expectedAddress: 3
            case .subject: 4
            case .path: 5
            case .count: 6
            case .indices: 7
            case .gapLimit: 8
            }
        }

        /// Whether the cell is secret (kept in a wiped scratch buffer, never as text).
        var isSecret: Bool { self == .privateKey || self == .mnemonic || self == .passphrase }
    }

    /// What a file's rows hold.
    public enum Kind: Sendable {
        /// A private key per row (`private_key`).
        case keys
        /// A recovery phrase per row (`mnemonic`), with the accounts to derive from it.
        case phrases

        /// The column every header must have.
        var requiredColumn: Column { self == .keys ? .privateKey : .mnemonic }

        /// The columns kept for this kind; the others are ignored.
        var columns: Set<Column> {
            switch self {
            case .keys: [.privateKey, .reference, .type, .expectedAddress, .subject]
            case .phrases:
                [
                    .mnemonic, .passphrase, .path, .count, .indices, .gapLimit, .reference, .type, .expectedAddress,
                    .subject,
                ]
            }
        }
    }

    /// The longest secret cell accepted (`private_key`, `mnemonic`, `passphrase`; a longer one refuses its
    /// row).
    public static let maximumKeyFieldBytes = 512
    /// The longest other cell kept (a longer one refuses its row); cells of ignored columns are not kept.
    public static let maximumFieldBytes = 4096

    /// The CSV file's path.
    public let path: String
    /// The header names, trimmed and lowercased, in file order (a long or unusual name appears only as
    /// its length, since a file without a header would have a key there).
    public private(set) var header: [String] = []
    /// The header names whose columns are not read (unknown to this kind of file, or renamed away by
    /// `columnNames`), in file order: for a warning, since a `label` column dropped without a word
    /// surprises.
    public private(set) var ignoredColumns: [String] = []
    /// The file's header name of each renamed column.
    private let columnNames: [Column: String]
    /// The 1-based line of the header.
    public private(set) var headerLine = 0

    private let input: FileInput
    private let defaultType: KeyType?
    /// What the rows hold.
    public let kind: Kind
    private var columnIndex: [Column: Int] = [:]

    // Parser state.
    private var line = 1
    private var previousWasCR = false
    private var swallowLF = false
    private var pushback: [UInt8] = []
    private var started = false
    private var rowCount = 0

    // The record being read.
    /// The secret cells' scratch buffers, by `Column.slot`: the key or phrase, then the passphrase.
    private let secretScratch: [UnsafeMutableRawBufferPointer]
    private var secretLength = [0, 0]
    /// The kept text cells of the current row, by `Column.slot`.
    private var cells: [[UInt8]] = Array(repeating: [], count: 9)
    /// The column of each header field, nil for ignored ones.
    private var fieldColumns: [Column?] = []
    private var fieldColumn: Column?
    private var recordHasContent = false
    private var headerCells: [[UInt8]] = []
    private var fieldIndex = 0
    private var fieldLength = 0
    private var fieldWasQuoted = false
    private var problem: KeyFormatError?
    /// False while ``skipRow()`` reads a row: its cells are not kept (nor, so, wiped).
    private var keepsCells = true
    private var recordLine = 1

    /// The most bytes this reader has held at once in its chunk, key scratch and cell buffers.
    public private(set) var peakBufferedBytes = 0

    /// Opens `path` and reads its header.
    ///
    /// - Parameters:
    ///   - path: the CSV file.
    ///   - defaultType: the key type of rows without a `type` cell (nil: such rows are refused).
    ///   - chunkSize: how many bytes are read from the file at a time.
    ///   - kind: keys (the default) or recovery phrases.
    ///   - columnNames: the file's own header name for a column, for an export whose headers differ
    ///     (`private_key` -> `privkey`): the column is read under that name only.
    /// - Throws: `KeyFormatError` (fatal for the file): `.readFailed`/`.notAFile` (class `io`),
    ///   `.missingHeader`, `.missingColumn`, `.duplicateColumn`, `.unterminatedQuote` (class `format`),
    ///   each naming the file and line.
    public init(
        path: String, defaultType: KeyType? = nil, chunkSize: Int = 64 * 1024, kind: Kind = .keys,
        columnNames: [Column: String] = [:]
    ) throws(KeyFormatError) {
        self.path = path
        self.defaultType = defaultType
        self.kind = kind
        self.columnNames = columnNames.mapValues { Self.headerName(Array($0.utf8)) }
        input = try FileInput(path: path, chunkSize: chunkSize)
        secretScratch = (0..<(kind == .keys ? 1 : 2)).map { _ in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maximumKeyFieldBytes, alignment: 16)
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            return buffer
        }
        try readHeader()
    }

    deinit {
        for buffer in secretScratch {
            SecretBytes.wipe(buffer.baseAddress, byteCount: buffer.count)
            buffer.deallocate()
        }
    }

    /// The next data row, with its key cell in secret storage; nil at the end of the file.
    ///
    /// - Throws: `KeyFormatError` only for problems that end the file: a read error or a quote that
    ///   is never closed. A bad row is returned with its `problem` set.
    public func nextRow() throws(KeyFormatError) -> CSVKeyRow? {
        precondition(kind == .keys, "nextRow reads key files; a phrase file is read with nextPhraseRow")
        guard let check = try nextDataRecord() else { return nil }
        defer { resetRecord() }
        return CSVKeyRow(
            row: rowCount, line: recordLine, file: path, privateKey: secret(slot: 0),
            reference: text(.reference), type: text(.type), expectedAddress: text(.expectedAddress),
            subject: text(.subject), problem: check.problem)
    }

    /// What ``nextDataRecord()`` found wrong with a row (nil: nothing).
    private struct RowCheck {
        var problem: KeyFormatError?
    }

    /// Reads the next record that is not a blank line into the cell buffers and counts it: nil at the end
    /// of the file, else the row's own problem (a ragged row, a bad cell), located. The caller reads the
    /// cells, then resets the record.
    private func nextDataRecord() throws(KeyFormatError) -> RowCheck? {
        while true {
            guard let fields = try readRecord(header: false) else { return nil }
            if fields == 1 && !recordHasContent && !fieldWasQuoted {
                resetRecord()
                continue  // a blank line
            }
            rowCount += 1
            var rowProblem = problem
            if rowProblem == nil && fields != header.count {
                rowProblem = KeyFormatError(
                    .raggedRow, "the row has \(fields) fields but the header has \(header.count)")
            }
            return RowCheck(problem: rowProblem?.located(source: String(rowCount), file: path, line: recordLine))
        }
    }

    /// Reads past the next data row without copying or validating its key: its row number, nil at the end
    /// of the file. For rows a resumed run finished, which it needs only to count; a whole-file error (a
    /// quote never closed) still throws.
    public func skipRow() throws(KeyFormatError) -> Int? {
        // A plain line (no quote, no CR) is a row unless it is blank (one field of whitespace), as the state
        // machine would find.
        while started, pushback.isEmpty, !swallowLF, !previousWasCR, let plain = input.plainLine() {
            recordLine = line
            line += 1
            if plain.contains(0x2C) || !plain.allSatisfy(ASCII.isWhitespace) {
                rowCount += 1
                return rowCount
            }
        }
        keepsCells = false
        defer { keepsCells = true }
        guard try nextDataRecord() != nil else { return nil }
        resetRecord()
        return rowCount
    }

    /// The next data row of a phrase file, with its phrase and passphrase in secret storage; nil at the end.
    ///
    /// - Throws: `KeyFormatError` only for problems that end the file, as ``nextRow()``.
    public func nextPhraseRow() throws(KeyFormatError) -> PhraseRow? {
        precondition(kind == .phrases, "nextPhraseRow reads phrase files; a key file is read with nextRow")
        guard let check = try nextDataRecord() else { return nil }
        defer { resetRecord() }
        return PhraseRow(
            row: rowCount, line: recordLine, file: path, mnemonic: secret(slot: 0),
            passphrase: columnIndex[.passphrase] == nil ? nil : secret(slot: 1), path: text(.path),
            count: text(.count), indices: text(.indices), gapLimit: text(.gapLimit), reference: text(.reference),
            type: text(.type), expectedAddress: text(.expectedAddress), subject: text(.subject),
            problem: check.problem)
    }

    /// The bytes of secret scratch buffer `slot`, copied into secret storage.
    private func secret(slot: Int) -> SecretBytes {
        SecretBytes.copying(UnsafeRawBufferPointer(rebasing: secretScratch[slot][0..<secretLength[slot]]))
    }

    /// The next data row, validated (rows without a `type` cell use the reader's default type).
    ///
    /// - Throws: what ``nextRow()`` throws; a refused row is returned as a record with an error.
    public func next() throws(KeyFormatError) -> KeyRecord? {
        try nextRow()?.parse(defaultType: defaultType)
    }

    /// The next data row, validated without deriving an address (unless the row has an
    /// `expected_address`); see ``CSVKeyRow/validated(defaultType:)``.
    ///
    /// - Throws: what ``nextRow()`` throws; a refused row is returned as a record with an error.
    public func nextSecret() throws(KeyFormatError) -> SecretRecord? {
        try nextRow()?.validated(defaultType: defaultType)
    }

    // MARK: - Header

    private func readHeader() throws(KeyFormatError) {
        while true {
            guard let fields = try readRecord(header: true) else {
                throw KeyFormatError(
                    .missingHeader, "the file is empty: expected a header row with a private_key column", file: path,
                    line: line)
            }
            if fields == 1 && !recordHasContent && !fieldWasQuoted {
                resetRecord()
                continue
            }
            break
        }
        headerLine = recordLine
        if let problem { throw problem.located(file: path, line: headerLine) }
        header = headerCells.map(Self.headerName)
        let kept = kind.columns
        let renamed = Dictionary(columnNames.map { ($1, $0) }) { first, _ in first }
        // A column is read under its own name, or only under the file's name for it when renamed.
        func column(named name: String) -> Column? {
            if let column = renamed[name] { return kept.contains(column) ? column : nil }
            guard let column = Column(rawValue: name), kept.contains(column), columnNames[column] == nil else {
                return nil
            }
            return column
        }
        for (index, name) in header.enumerated() {
            guard let column = column(named: name) else { continue }
            guard columnIndex[column] == nil else {
                throw KeyFormatError(
                    .duplicateColumn, "the header names the \(name) column twice", file: path, line: headerLine)
            }
            columnIndex[column] = index
        }
        for (column, name) in columnNames.sorted(by: { $0.key.rawValue < $1.key.rawValue })
        where kept.contains(column) && columnIndex[column] == nil {
            throw KeyFormatError(
                .missingColumn,
                "the header has no \(name) column, named as the \(column.rawValue) column (found: "
                    + header.map { $0.isEmpty ? "(empty)" : $0 }.joined(separator: ", ") + ")",
                file: path, line: headerLine)
        }
        fieldColumns = header.map(column(named:))
        ignoredColumns = zip(header, fieldColumns).compactMap { name, column in column == nil ? name : nil }
        let required = kind.requiredColumn
        guard columnIndex[required] != nil else {
            // A file without a header has a key in its first row: show only names that cannot be keys.
            let found = header.map { $0.isEmpty ? "(empty)" : $0 }.joined(separator: ", ")
            throw KeyFormatError(
                .missingColumn,
                "the header has no \(required.rawValue) column (found: \(found); is the first row a header?)",
                file: path, line: headerLine)
        }
        resetRecord()
    }

    /// An empty header cell with room for a key, so a key in a headerless file is not spread over
    /// reallocated (and unwiped) buffers.
    static func newHeaderCell() -> [UInt8] {
        var cell: [UInt8] = []
        cell.reserveCapacity(128)
        return cell
    }

    /// A header cell as a name: trimmed and lowercased when it is short and plain (letters, digits,
    /// `_`, `-`, `.`, spaces); otherwise only its length. A file without a header has a key in its
    /// first row, which must not become a `String` or appear in an error.
    static func headerName(_ cell: [UInt8]) -> String {
        var bytes = cell[...]
        while let first = bytes.first, ASCII.isWhitespace(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, ASCII.isWhitespace(last) { bytes = bytes.dropLast() }
        let plain = bytes.allSatisfy { byte in
            (0x61...0x7A).contains(byte | 0x20) || (0x30...0x39).contains(byte)
                || [0x5F, 0x2D, 0x2E, 0x20].contains(byte)
        }
        guard plain && bytes.count <= 24 else { return "(\(bytes.count) characters, not shown)" }
        return String(decoding: bytes, as: UTF8.self).lowercased()
    }

    // MARK: - Records

    private enum State { case fieldStart, unquoted, quoted, quoteInQuoted }

    /// Reads one record into the cell buffers; returns its field count, or nil at the end of the file.
    private func readRecord(header isHeader: Bool) throws(KeyFormatError) -> Int? {
        var state = State.fieldStart
        var sawByte = false
        recordLine = line
        while true {
            guard let byte = try nextByte() else {
                if state == .quoted {
                    throw KeyFormatError(
                        .unterminatedQuote,
                        "a quoted field opened in the record starting here is never closed before the end of the file",
                        file: path, line: recordLine)
                }
                if !sawByte { return nil }
                endField(isHeader)
                return fieldIndex
            }
            if swallowLF {
                swallowLF = false
                if byte == 0x0A {
                    countLine(byte)
                    if !sawByte {
                        recordLine = line
                        continue
                    }
                }
            }
            countLine(byte)
            sawByte = true
            switch state {
            case .fieldStart, .unquoted:
                switch byte {
                case 0x22 where state == .fieldStart:  // opening quote
                    fieldWasQuoted = true
                    state = .quoted
                case 0x22:  // a quote inside an unquoted field (RFC 4180 allows none)
                    if problem == nil {
                        problem = KeyFormatError(
                            .malformedQuote,
                            "field \(fieldIndex + 1) has a quote inside an unquoted field "
                                + "(quote the whole field and write \"\" for a quote)")
                    }
                    append(byte, isHeader)
                case 0x2C:  // comma
                    endField(isHeader)
                    state = .fieldStart
                case 0x0A, 0x0D:
                    if byte == 0x0D { swallowLF = true }
                    endField(isHeader)
                    return fieldIndex
                default:
                    append(byte, isHeader)
                    state = .unquoted
                    // The rest of an unquoted field up to its comma, line break or quote, in one step: no
                    // quote or line break in it, so state and line count stay as they are.
                    if !isHeader && pushback.isEmpty { appendRun(input.unquotedRun()) }
                }
            case .quoted:
                if byte == 0x22 { state = .quoteInQuoted } else { append(byte, isHeader) }
            case .quoteInQuoted:
                switch byte {
                case 0x22:
                    append(byte, isHeader)
                    state = .quoted
                case 0x2C:
                    endField(isHeader)
                    state = .fieldStart
                case 0x0A, 0x0D:
                    if byte == 0x0D { swallowLF = true }
                    endField(isHeader)
                    return fieldIndex
                default:
                    if problem == nil {
                        problem = KeyFormatError(
                            .malformedQuote,
                            "field \(fieldIndex + 1) has characters after its closing quote (write \"\" for a quote)")
                    }
                    append(byte, isHeader)
                    state = .unquoted
                }
            }
        }
    }

    private func append(_ byte: UInt8, _ isHeader: Bool) {
        fieldLength += 1
        if !ASCII.isWhitespace(byte) { recordHasContent = true }
        if !keepsCells && !isHeader { return }
        if isHeader {
            if headerCells.count <= fieldIndex { headerCells.append(Self.newHeaderCell()) }
            guard fieldLength <= Self.maximumFieldBytes else {
                if problem == nil {
                    problem = KeyFormatError(
                        .fieldTooLong, "header field \(fieldIndex + 1) is longer than \(Self.maximumFieldBytes) bytes")
                }
                return
            }
            headerCells[fieldIndex].append(byte)
            return
        }
        guard let column = fieldColumn else { return }  // an ignored column: not kept
        if column.isSecret {
            let slot = column.slot
            guard secretLength[slot] < secretScratch[slot].count else {
                if problem == nil {
                    problem = KeyFormatError(
                        .fieldTooLong, "the \(column.rawValue) cell is longer than \(Self.maximumKeyFieldBytes) bytes")
                }
                return
            }
            secretScratch[slot][secretLength[slot]] = byte
            secretLength[slot] += 1
            return
        }
        guard fieldLength <= Self.maximumFieldBytes else {
            if problem == nil {
                problem = KeyFormatError(
                    .fieldTooLong, "the \(column.rawValue) cell is longer than \(Self.maximumFieldBytes) bytes")
            }
            return
        }
        cells[column.slot].append(byte)
    }

    /// ``append(_:_:)`` for each byte of `run` (bytes of a data row's unquoted field), at once.
    private func appendRun(_ run: UnsafeRawBufferPointer) {
        guard !run.isEmpty else { return }
        let before = fieldLength
        fieldLength += run.count
        if !recordHasContent && run.contains(where: { !ASCII.isWhitespace($0) }) { recordHasContent = true }
        guard keepsCells, let column = fieldColumn else { return }  // a skipped row or an ignored column
        if column.isSecret {
            let slot = column.slot
            let length = secretLength[slot]
            let kept = min(run.count, secretScratch[slot].count - length)
            if kept > 0 {
                UnsafeMutableRawBufferPointer(rebasing: secretScratch[slot][length..<length + kept])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: run[0..<kept]))
                secretLength[slot] += kept
            }
            if kept < run.count && problem == nil {
                problem = KeyFormatError(
                    .fieldTooLong, "the \(column.rawValue) cell is longer than \(Self.maximumKeyFieldBytes) bytes")
            }
            return
        }
        // As append: a byte is kept while the field's length with it is within the limit.
        let kept = max(0, min(run.count, Self.maximumFieldBytes - before))
        if kept > 0 { cells[column.slot].append(contentsOf: run[0..<kept]) }
        if kept < run.count && problem == nil {
            problem = KeyFormatError(
                .fieldTooLong, "the \(column.rawValue) cell is longer than \(Self.maximumFieldBytes) bytes")
        }
    }

    private func endField(_ isHeader: Bool) {
        if isHeader && headerCells.count <= fieldIndex { headerCells.append([]) }
        noteBuffered()
        fieldIndex += 1
        fieldLength = 0
        fieldColumn = fieldIndex < fieldColumns.count ? fieldColumns[fieldIndex] : nil
    }

    private func resetRecord() {
        for slot in secretScratch.indices {
            SecretBytes.wipe(secretScratch[slot].baseAddress, byteCount: secretLength[slot])
            secretLength[slot] = 0
        }
        for slot in cells.indices { cells[slot].removeAll(keepingCapacity: true) }
        // Header cells may hold a key (a file without a header): wipe them in place before freeing.
        for index in headerCells.indices { SecretBytes.wipe(&headerCells[index]) }
        headerCells.removeAll()
        fieldIndex = 0
        fieldLength = 0
        fieldColumn = fieldColumns.first ?? nil
        recordHasContent = false
        fieldWasQuoted = false
        problem = nil
    }

    /// A kept cell as text, trimmed; nil when the column is absent or the cell empty.
    private func text(_ column: Column) -> String? {
        let value = String(decoding: cells[column.slot], as: UTF8.self).trimmingASCIIWhitespace()
        return value.isEmpty ? nil : value
    }

    private func noteBuffered() {
        var total = input.capacity + secretScratch.reduce(0) { $0 + $1.count }
        for cell in cells { total += cell.capacity }
        for cell in headerCells { total += cell.capacity }
        if total > peakBufferedBytes { peakBufferedBytes = total }
    }

    // MARK: - Bytes and lines

    private func nextByte() throws(KeyFormatError) -> UInt8? {
        if !started {
            started = true
            // Skip a UTF-8 byte order mark (EF BB BF).
            var head: [UInt8] = []
            while head.count < 3, let byte = try input.next() {
                head.append(byte)
                if byte != [0xEF, 0xBB, 0xBF][head.count - 1] { break }
            }
            if head != [0xEF, 0xBB, 0xBF] { pushback = head.reversed() }
            SecretBytes.wipe(&head)
        }
        if let byte = pushback.popLast() { return byte }
        return try input.next()
    }

    /// Counts LF, CRLF and lone CR as one line break each.
    @inline(__always)
    private func countLine(_ byte: UInt8) {
        if byte == 0x0D || (byte == 0x0A && !previousWasCR) { line += 1 }
        previousWasCR = byte == 0x0D
    }
}
