import Foundation

/// A streaming RFC 4180 CSV reader: quoted fields (with `""` escapes and embedded newlines), CRLF or LF
/// line ends, a leading UTF-8 BOM, blank lines skipped, an optional header row, and errors that name
/// the row and line. It reads in chunks and keeps only the current chunk's records in memory.
/// See <https://www.rfc-editor.org/rfc/rfc4180>.
public final class CSVReader {
    /// One data row.
    public struct Record: Sendable, Hashable {
        /// The 1-based data row number (the header is not counted; blank lines are not rows).
        public var row: Int
        /// The 1-based line where the row starts.
        public var line: Int
        /// The fields in column order.
        public var fields: [String]
        /// Column name to field.
        public var values: [String: String]

        /// A data row as the reader buffers it: its fields live only in `values` (columns are unique), so
        /// a row costs one dictionary, and ``fields`` is built only for ``CSVReader/next()``; a plain row
        /// of a one-column file keeps its field alone in `single` (no dictionary at all).
        struct Lean {
            var row: Int
            var line: Int
            var values: [String: String]
            var single: String? = nil
            /// The fields in order, kept only when column names repeat (without a header).
            var fields: [String]?
        }

        /// The row as a template item (an object of strings).
        public var item: TemplateValue { .object(values.mapValues(TemplateValue.string)) }
    }

    /// Column names: from the header row, or as given when there is no header.
    public private(set) var columns: [String] = []

    private let chunks: ByteChunks
    private let delimiter: UInt8
    private let hasHeader: Bool
    private let requiredColumns: [String]?
    /// Rows parsed from the current chunk, moved out (nil) as they are handed over.
    private var ready: [Record.Lean?] = []
    /// A dictionary with every column mapped to "", and each column's index in it: a row's dictionary is
    /// a copy of it with the values stored by index (no key hashing, no rehashing per row).
    private var template: [String: String] = [:]
    private var templateIndices: [Dictionary<String, String>.Index] = []
    private var columnsRepeat = false
    private var readyIndex = 0
    private var finished = false
    private var headerDone = false
    private var rowNumber = 0

    // Parser state, kept across chunks.
    private var field: [UInt8] = []
    /// The ended fields of the row being read, back to back, and where each ends in `rowBytes` (one
    /// buffer per reader instead of an array per field).
    private var rowBytes: [UInt8] = []
    private var fieldEnds: [Int] = []
    private var inQuotes = false
    private var afterQuote = false
    private var fieldQuoted = false
    private var recordHasContent = false
    private var skipLF = false
    private var previousByte: UInt8 = 0
    private var line = 1
    private var recordLine = 1
    /// Counting (``countRemaining()``): data rows are checked but not built.
    private var checksOnly = false
    private var fieldCount = 0
    private var checkedRows = 0

    /// Opens a CSV file.
    ///
    /// - Parameters:
    ///   - url: the file.
    ///   - header: whether the first row names the columns.
    ///   - columns: with a header, columns that must be present; without one, the column names.
    ///   - delimiter: an ASCII field separator.
    ///   - chunkSize: bytes per read.
    public convenience init(
        url: URL, header: Bool = true, columns: [String]? = nil, delimiter: Character = ",", chunkSize: Int = 65_536
    ) throws(InputError) {
        self.init(
            chunks: try ByteChunks(url: url, chunkSize: chunkSize), header: header, columns: columns,
            delimiter: delimiter)
    }

    /// Reads CSV from bytes in memory (tests; small inline data).
    public convenience init(
        bytes: [UInt8], name: String = "<memory>", header: Bool = true, columns: [String]? = nil,
        delimiter: Character = ",", chunkSize: Int = 65_536
    ) {
        self.init(
            chunks: ByteChunks(bytes: bytes, name: name, chunkSize: chunkSize), header: header, columns: columns,
            delimiter: delimiter)
    }

    private init(chunks: ByteChunks, header: Bool, columns: [String]?, delimiter: Character) {
        self.chunks = chunks
        self.delimiter = delimiter.asciiValue ?? UInt8(ascii: ",")
        self.hasHeader = header
        self.requiredColumns = columns
        if !header { setColumns(columns ?? []) }
    }

    private func setColumns(_ names: [String]) {
        columns = names
        // Duplicate names (only possible without a header): the last field wins, as a plain insert would.
        template = Dictionary(names.map { ($0, "") }, uniquingKeysWith: { first, _ in first })
        templateIndices = names.map { template.index(forKey: $0)! }
        columnsRepeat = template.count != names.count
    }

    /// The next data row, or `nil` at the end of the file.
    ///
    /// - Throws: ``InputError`` for an unclosed quote, a stray quote, a row with the wrong number of
    ///   fields, a missing column, or bytes that are not UTF-8.
    public func next() throws(InputError) -> Record? {
        guard let lean = try nextLean() else { return nil }
        let values = lean.single.map { [columns[0]: $0] } ?? lean.values
        return Record(
            row: lean.row, line: lean.line, fields: lean.fields ?? columns.map { values[$0] ?? "" }, values: values)
    }

    /// The next data row with its fields by column name only (what a work item carries), or `nil`.
    func nextLean() throws(InputError) -> Record.Lean? {
        while readyIndex >= ready.count {
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            if finished { return nil }
            if let chunk = try chunks.next() { try consume(chunk) } else { try finishInput() }
        }
        defer { readyIndex += 1 }
        return ready[readyIndex].take()
    }

    /// Reads the remaining rows only to count them: every problem ``next()`` would throw is thrown, but
    /// no row is built (no strings, no dictionaries), so a large file is counted several times faster.
    public func countRemaining() throws(InputError) -> Int {
        var total = ready.count - readyIndex
        ready.removeAll(keepingCapacity: true)
        readyIndex = 0
        checksOnly = true
        defer { checksOnly = false }
        checkedRows = 0
        if headerDone || !hasHeader {
            // A row split across the last chunk read: check its fields so far.
            var start = 0
            for end in fieldEnds {
                try checkField(rowBytes[start..<end], line: recordLine)
                start = end
            }
            rowBytes.removeAll(keepingCapacity: true)
            fieldEnds.removeAll(keepingCapacity: true)
        }
        while !finished {
            if let chunk = try chunks.next() { try consume(chunk) } else { try finishInput() }
            total += ready.count
            ready.removeAll(keepingCapacity: true)
        }
        return total + checkedRows
    }

    /// At the end of the file: refuses an open quote, and ends a last record that has no line break (a
    /// data row is only checked while counting).
    private func finishInput() throws(InputError) {
        finished = true
        if inQuotes { throw error(line: recordLine, "unclosed quoted field (the file ends inside quotes)") }
        guard recordHasContent else { return }
        if checksOnly && (headerDone || !hasHeader) {
            try endCheckedRecord(field[...])
        } else {
            endField()
            try endRecord()
        }
    }

    /// Reads every remaining row (for small files and tests).
    public func readAll() throws(InputError) -> [Record] {
        var out: [Record] = []
        while let record = try next() { out.append(record) }
        return out
    }

    private func error(line: Int, row: Int? = nil, _ message: String) -> InputError {
        InputError(file: chunks.name, line: line, row: row, message: message)
    }

    private func consume(_ chunk: [UInt8]) throws(InputError) {
        let quote = UInt8(ascii: "\"")
        let cr = UInt8(ascii: "\r")
        let lf = UInt8(ascii: "\n")
        let delimiter = delimiter
        // The parser state lives in locals while a chunk is scanned (a class's stored properties cost an
        // exclusivity check per access, i.e. per byte), and is stored back before anything that reads it.
        var inQuotes = inQuotes
        var afterQuote = afterQuote
        var fieldQuoted = fieldQuoted
        var recordHasContent = recordHasContent
        var skipLF = skipLF
        var previousByte = previousByte
        var line = line
        var recordLine = recordLine
        var field = field
        func store() {
            self.inQuotes = inQuotes
            self.afterQuote = afterQuote
            self.fieldQuoted = fieldQuoted
            self.recordHasContent = recordHasContent
            self.skipLF = skipLF
            self.previousByte = previousByte
            self.line = line
            self.recordLine = recordLine
            self.field = field
        }
        defer { store() }
        // Counting data rows: check them without building them.
        var light = checksOnly && (headerDone || !hasHeader)
        let count = chunk.count
        var index = 0
        while index < count {
            // A data row that starts here and ends in this chunk without a quote (the common case) is
            // split in place: no byte is copied, and a field costs only its string.
            if !recordHasContent && !inQuotes && !afterQuote && !skipLF && (headerDone || !hasHeader) {
                var end = index
                var plain = true
                while end < count {
                    let next = chunk[end]
                    if next == lf || next == cr { break }
                    if next == quote {
                        plain = false
                        break
                    }
                    end += 1
                }
                if plain && end < count {
                    if end > index {
                        if light {
                            try checkPlainRow(chunk[index..<end], line: line)
                        } else {
                            try plainRow(chunk, index..<end, line: line)
                        }
                    }
                    index = end + 1
                    if chunk[end] == cr {
                        if index < count {
                            if chunk[index] == lf { index += 1 }
                        } else {
                            skipLF = true
                        }
                    }
                    line += 1
                    recordLine = line
                    continue
                }
            }
            let byte = chunk[index]
            index += 1
            if skipLF {
                skipLF = false
                if byte == lf { continue }
            }
            if inQuotes {
                if byte == quote {
                    inQuotes = false
                    afterQuote = true
                    previousByte = byte
                } else {
                    // Count a CRLF inside quotes once, even across a chunk boundary.
                    if byte == cr || (byte == lf && previousByte != cr) { line += 1 }
                    previousByte = byte
                    field.append(byte)
                }
                continue
            }
            if afterQuote {
                if byte == quote {
                    // `""` inside a quoted field is one quote.
                    field.append(quote)
                    inQuotes = true
                    afterQuote = false
                    continue
                }
                afterQuote = false
                guard byte == delimiter || byte == lf || byte == cr else {
                    throw error(line: line, "unexpected character after a closing quote (quote the whole field)")
                }
            }
            switch byte {
            case delimiter:
                recordHasContent = true
                if light {
                    try checkField(field[...], line: recordLine)
                } else {
                    rowBytes.append(contentsOf: field)
                    fieldEnds.append(rowBytes.count)
                }
                field.removeAll(keepingCapacity: true)
                fieldQuoted = false
            case lf, cr:
                if byte == cr { skipLF = true }
                if recordHasContent {
                    recordHasContent = false
                    if light {
                        self.recordLine = recordLine
                        try endCheckedRecord(field[...])
                    } else {
                        rowBytes.append(contentsOf: field)
                        fieldEnds.append(rowBytes.count)
                        store()
                        try endRecord()
                        light = checksOnly && (headerDone || !hasHeader)
                    }
                    field.removeAll(keepingCapacity: true)
                    fieldQuoted = false
                }
                line += 1
                recordLine = line
            case quote:
                guard field.isEmpty, !fieldQuoted else {
                    throw error(line: line, "unexpected quote in an unquoted field")
                }
                inQuotes = true
                fieldQuoted = true
                recordHasContent = true
            default:
                recordHasContent = true
                // A run of plain bytes is copied at once.
                var end = index
                while end < count {
                    let next = chunk[end]
                    if next == delimiter || next == lf || next == cr || next == quote { break }
                    end += 1
                }
                field.append(contentsOf: chunk[(index - 1)..<end])
                index = end
            }
        }
    }

    /// A data row without quotes, wholly in `chunk` at `range` (no line end in it): what the byte loop
    /// and ``endRecord()`` make of it, without copying its bytes.
    private func plainRow(_ chunk: [UInt8], _ range: Range<Int>, line: Int) throws(InputError) {
        recordLine = line
        rowNumber += 1
        let delimiter = delimiter
        let one = columns.count == 1
        var values = one ? [:] : template
        var single: String?
        var found = 0
        try chunk.withUnsafeBufferPointer { (bytes) throws(InputError) in
            var start = range.lowerBound
            var index = start
            while true {
                if index == range.upperBound || bytes[index] == delimiter {
                    let text = try fieldString(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    if one {
                        if found == 0 { single = text }
                    } else if found < templateIndices.count {
                        values.values[templateIndices[found]] = text
                    }
                    found += 1
                    if index == range.upperBound { break }
                    start = index + 1
                }
                index += 1
            }
        }
        guard found == columns.count else {
            throw wrongFieldCount(found, line: line)
        }
        var fields: [String]?
        if columnsRepeat {
            // Rare (repeated column names without a header): the fields in order, split again.
            fields = chunk[range].split(separator: delimiter, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
        }
        ready.append(Record.Lean(row: rowNumber, line: line, values: values, single: single, fields: fields))
    }

    /// A plain data row being counted: the checks of ``plainRow(_:_:line:)``, nothing built. A row is
    /// UTF-8 exactly when each of its fields is, as the delimiter is ASCII.
    private func checkPlainRow(_ row: ArraySlice<UInt8>, line: Int) throws(InputError) {
        recordLine = line
        try checkUTF8(row, line: line)
        var found = 1
        for byte in row where byte == delimiter { found += 1 }
        try countCheckedRow(fields: found, line: line)
    }

    /// The error for a row of `found` fields where the header has `columns.count`.
    private func wrongFieldCount(_ found: Int, line: Int) -> InputError {
        error(
            line: line, row: rowNumber,
            "expected \(columns.count) field\(columns.count == 1 ? "" : "s"), found \(found)")
    }

    /// Counts a checked row of `fields` fields, refusing it unless it has one per column.
    private func countCheckedRow(fields found: Int, line: Int) throws(InputError) {
        rowNumber += 1
        guard found == columns.count else {
            throw wrongFieldCount(found, line: line)
        }
        checkedRows += 1
    }

    /// A field of a row being counted: it must be UTF-8 (as ``endRecord()`` requires).
    private func checkField(_ bytes: ArraySlice<UInt8>, line: Int) throws(InputError) {
        fieldCount += 1
        try checkUTF8(bytes, line: line)
    }

    private func checkUTF8(_ bytes: ArraySlice<UInt8>, line: Int) throws(InputError) {
        // ASCII (the common case) is UTF-8; only other bytes need the decoder.
        guard bytes.contains(where: { $0 >= 0x80 }) else { return }
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return
            case .error: throw error(line: line, "the row is not valid UTF-8")
            }
        }
    }

    /// Ends a row being counted, whose last field is `last`: the checks of ``endRecord()``, no row built.
    private func endCheckedRecord(_ last: ArraySlice<UInt8>) throws(InputError) {
        try checkField(last, line: recordLine)
        let found = fieldCount
        fieldCount = 0
        recordHasContent = false
        try countCheckedRow(fields: found, line: recordLine)
    }

    private func endField() {
        rowBytes.append(contentsOf: field)
        fieldEnds.append(rowBytes.count)
        field.removeAll(keepingCapacity: true)
        fieldQuoted = false
    }

    /// Ends the current record; the caller has ended its last field (``endField()``).
    private func endRecord() throws(InputError) {
        recordHasContent = false
        defer {
            rowBytes.removeAll(keepingCapacity: true)
            fieldEnds.removeAll(keepingCapacity: true)
        }
        if hasHeader, !headerDone {
            let strings = try rowStrings()
            headerDone = true
            var seen = Set<String>()
            for name in strings where !seen.insert(name).inserted {
                throw error(line: recordLine, "duplicate column '\(name)' in the header")
            }
            for name in requiredColumns ?? [] where !seen.contains(name) {
                throw error(
                    line: recordLine, "missing column '\(name)' (the header has \(strings.joined(separator: ", ")))")
            }
            setColumns(strings)
            return
        }
        rowNumber += 1
        // Checked for UTF-8 before the count, as the fields were always decoded first.
        var values = template
        try rowBytes.withUnsafeBufferPointer { (bytes) throws(InputError) in
            var start = 0
            for (column, end) in fieldEnds.enumerated() {
                let text = try fieldString(UnsafeBufferPointer(rebasing: bytes[start..<end]))
                if column < templateIndices.count { values.values[templateIndices[column]] = text }
                start = end
            }
        }
        guard fieldEnds.count == columns.count else {
            throw wrongFieldCount(fieldEnds.count, line: recordLine)
        }
        ready.append(
            Record.Lean(
                row: rowNumber, line: recordLine, values: values, fields: columnsRepeat ? try rowStrings() : nil))
    }

    /// The ended fields of the row as strings (the header).
    private func rowStrings() throws(InputError) -> [String] {
        var strings: [String] = []
        try rowBytes.withUnsafeBufferPointer { (bytes) throws(InputError) in
            var start = 0
            for end in fieldEnds {
                strings.append(try fieldString(UnsafeBufferPointer(rebasing: bytes[start..<end])))
                start = end
            }
        }
        return strings
    }

    /// A field's bytes as a string; ASCII (the common case) needs no UTF-8 validation.
    private func fieldString(_ bytes: UnsafeBufferPointer<UInt8>) throws(InputError) -> String {
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii { return String(decoding: bytes, as: UTF8.self) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw error(line: recordLine, "the row is not valid UTF-8")
        }
        return text
    }
}

@available(*, unavailable, message: "a reader holds a file position; use it from one task")
extension CSVReader: Sendable {}
