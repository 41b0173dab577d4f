import Foundation
import KeyFormats
import Testing
import WalletCrypto

/// RFC 4180 edge cases, row numbering, per-row refusals, fatal header errors, and flat memory.
@Suite struct CSVKeyReaderTests {
    static func hexKey() -> (hex: String, address: String) {
        let key = Secp256k1.PrivateKey.generate()
        return (Base16.encode(key.secretBytes.unsafeCopy()), key.ethereumAddress.checksummed)
    }

    static func readAll(_ path: String, defaultType: KeyType? = .ethereum) throws -> [KeyRecord] {
        let reader = try CSVKeyReader(path: path, defaultType: defaultType)
        var records: [KeyRecord] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    @Test func theSubjectColumnIsKeptPerRow() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let k = (0..<3).map { _ in Self.hexKey() }
        let path = try dir.write(
            "users.csv", "private_key, Subject ,notes\n\(k[0].hex),alice,x\n\(k[1].hex),,y\n\(k[2].hex),\"b, ob\",z\n")
        let reader = try CSVKeyReader(path: path, defaultType: .ethereum)
        #expect(reader.header == ["private_key", "subject", "notes"])
        var records: [SecretRecord] = []
        while let record = try reader.nextSecret() { records.append(record) }
        #expect(records.map(\.subject) == ["alice", nil, "b, ob"])
        #expect(records.allSatisfy { (try? $0.result.get()) != nil })
    }

    @Test func quotingCRLFBOMAndBlankLines() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let k = (0..<5).map { _ in Self.hexKey() }
        let text =
            "\u{FEFF}Reference , PRIVATE_KEY,notes\r\n"
            + "\r\n"
            + "\"a, with comma\",\(k[0].hex),x\r\n"
            + "\"quote \"\"inside\"\"\",\"0x\(k[1].hex)\",\"multi\r\nline\r\nnote\"\r\n"
            + "   \n"
            + "plain,  \(k[2].hex)  ,\n"
            + ",\(k[3].hex),\n"
            + "last,\(k[4].hex),no newline at end"
        let path = try dir.write("keys.csv", text)
        let reader = try CSVKeyReader(path: path, defaultType: .ethereum)
        #expect(reader.header == ["reference", "private_key", "notes"])
        var records: [KeyRecord] = []
        while let record = try reader.next() { records.append(record) }
        #expect(records.count == 5)
        #expect(records.map(\.source) == ["1", "2", "3", "4", "5"])
        #expect(records.map(\.line) == [3, 4, 8, 9, 10])
        #expect(records.map(\.reference) == ["a, with comma", "quote \"inside\"", "plain", nil, "last"])
        for (record, key) in zip(records, k) {
            #expect(try record.result.get().address == key.address)
        }
        // Printing or dumping records shows addresses, never keys.
        var dumped = ""
        dump(records, to: &dumped)
        for text in [String(describing: records), String(reflecting: records), dumped] {
            #expect(text.contains(k[0].address))
            for key in k { #expect(!text.lowercased().contains(key.hex)) }
        }
    }

    @Test func loneCRAndLFLineEndings() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let k = (0..<2).map { _ in Self.hexKey() }
        let path = try dir.write("cr.csv", "private_key\r\(k[0].hex)\r\r\(k[1].hex)\r")
        let records = try Self.readAll(path)
        #expect(records.count == 2)
        #expect(records.map(\.line) == [2, 4])
        #expect(records.compactMap { try? $0.result.get().address } == k.map(\.address))
    }

    @Test func missingPrivateKeyColumnNamesFileAndLine() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let path = try dir.write("nokey.csv", "\n\nreference,key\nx,\(Self.hexKey().hex)\n")
        let error = refusal { () throws(KeyFormatError) in try CSVKeyReader(path: path) }
        expectRefusal(error, code: .missingColumn, errorClass: .format, secretForms: [])
        #expect(error?.file == path)
        #expect(error?.line == 3)
        #expect(error?.description.hasPrefix("\(path):3: the header has no private_key column") == true)
        // Without a header the first key would be read as a column name: it must not be shown.
        let key = Self.hexKey().hex
        let headerless = try dir.write("headerless.csv", "\(key),my-reference\n")
        let noHeader = refusal { () throws(KeyFormatError) in try CSVKeyReader(path: headerless) }
        expectRefusal(noHeader, code: .missingColumn, errorClass: .format, secretForms: [key, String(key.prefix(16))])
        #expect(noHeader?.reason.contains("(64 characters, not shown), my-reference") == true)
        let empty = try dir.write("empty.csv", "")
        expectRefusal(
            refusal { () throws(KeyFormatError) in try CSVKeyReader(path: empty) }, code: .missingHeader,
            errorClass: .format, secretForms: [])
        let twice = try dir.write("twice.csv", "private_key,Private_Key\n")
        expectRefusal(
            refusal { () throws(KeyFormatError) in try CSVKeyReader(path: twice) }, code: .duplicateColumn,
            errorClass: .format, secretForms: [])
        expectRefusal(
            refusal { () throws(KeyFormatError) in try CSVKeyReader(path: dir.path + "/absent.csv") },
            code: .fileNotFound,
            errorClass: .io, secretForms: [])
    }

    @Test func raggedRowsAreRefusedAndReadingContinues() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let k = (0..<4).map { _ in Self.hexKey() }
        let text = """
            reference,private_key,type
            a,\(k[0].hex),ethereum
            b,\(k[1].hex)
            c, d,\(k[2].hex),ethereum
            e,\(k[3].hex),evm

            """
        let records = try Self.readAll(dir.write("ragged.csv", text), defaultType: nil)
        #expect(records.count == 4)
        #expect(try records[0].result.get().address == k[0].address)
        expectRefusal(records[1].result.failure, code: .raggedRow, errorClass: .format, secretForms: [k[1].hex])
        expectRefusal(records[2].result.failure, code: .raggedRow, errorClass: .format, secretForms: [k[2].hex])
        #expect(records[2].result.failure?.reason == "the row has 4 fields but the header has 3")
        #expect(
            records[2].result.failure?.description.hasSuffix("ragged.csv:4: the row has 4 fields but the header has 3")
                == true)
        #expect(try records[3].result.get().address == k[3].address)
    }

    @Test func typeExpectedAddressAndEmptyCells() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let eth = Self.hexKey()
        let other = Self.hexKey()
        let sol = Ed25519.PrivateKey.generate()
        var solText = Base58.encode(sol.keypairBytes.unsafeCopy())
        if solText.count == 64 { solText = Base58.encode(sol.seed.unsafeCopy()) }
        let text = """
            private_key,type,expected_address,reference
            \(eth.hex),,,
            \(eth.hex),ETHEREUM,\(eth.address.lowercased()),ok
            \(other.hex),ethereum,\(eth.address),wrong-address
            \(solText),solana,\(sol.solanaAddress),sol
            \(solText),,,no-type-is-ethereum
            \(eth.hex),bitcoin,,bad-type
            \(eth.hex),,,\(String(repeating: "r", count: 129))

            """
        let records = try Self.readAll(dir.write("typed.csv", text), defaultType: .ethereum)
        #expect(records.count == 7)
        #expect(try records[0].result.get().address == eth.address)
        #expect(records[0].reference == nil)
        #expect(try records[1].result.get().address == eth.address)
        expectRefusal(
            records[2].result.failure, code: .expectedAddressMismatch, errorClass: .mismatch, secretForms: [other.hex])
        #expect(try records[3].result.get().address == sol.solanaAddress)
        #expect(records[4].result.failure?.errorClass == .validation)
        expectRefusal(records[5].result.failure, code: .unknownType, errorClass: .validation, secretForms: [eth.hex])
        expectRefusal(
            records[6].result.failure, code: .referenceTooLong, errorClass: .validation, secretForms: [eth.hex])
        // Without a default type, a row without a type cell is refused.
        let none = try Self.readAll(dir.write("untyped.csv", "private_key\n\(eth.hex)\n"), defaultType: nil)
        #expect(none.first?.result.failure?.code == .unknownType)
    }

    @Test func badKeysInCellsShowNoKeyMaterial() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let good = Self.hexKey().hex
        let bad = [
            String(good.dropLast(2)), String(good.dropLast()) + "z", String(repeating: "0", count: 64),
            "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
        ]
        let text = "private_key\n" + bad.joined(separator: "\n") + "\n\"\"\n"
        let records = try Self.readAll(dir.write("bad.csv", text))
        #expect(
            records.map { $0.result.failure?.code } == [.wrongLength, .notHex, .zeroKey, .keyOutOfRange, .emptyKey])
        for (record, key) in zip(records, bad + [""]) {
            expectRefusal(
                record.result.failure, code: record.result.failure!.code, errorClass: .validation,
                secretForms: [key, String(key.dropLast(2))])
            #expect(record.result.failure?.file?.hasSuffix("bad.csv") == true)
        }
    }

    @Test func unterminatedQuoteIsFatalAtTheRecordStart() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let key = Self.hexKey()
        let path = try dir.write("open.csv", "private_key\n\(key.hex)\n\"\(key.hex)\nmore\n")
        let reader = try CSVKeyReader(path: path, defaultType: .ethereum)
        #expect(try reader.next()?.result.get().address == key.address)
        let error = refusal { () throws(KeyFormatError) in try reader.next() }
        expectRefusal(error, code: .unterminatedQuote, errorClass: .format, secretForms: [key.hex])
        #expect(error?.line == 3)
        let after = try dir.write("after.csv", "private_key\n\"\(key.hex)\"x\n")
        expectRefusal(
            try Self.readAll(after).first?.result.failure, code: .malformedQuote, errorClass: .format,
            secretForms: [key.hex])
    }

    /// RFC 4180 allows no quote inside an unquoted field (issue 28): its row is refused, the next one read.
    @Test func aBareQuoteInAnUnquotedFieldRefusesItsRow() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let key = Self.hexKey()
        let other = Self.hexKey()
        let text =
            "private_key,reference\n\(key.hex),a\"b\n\(key.hex.prefix(10))\"\(key.hex.dropFirst(10)),c\n\(other.hex),d\n"
        let records = try Self.readAll(dir.write("bare.csv", text))
        #expect(records.count == 3)
        for record in records.prefix(2) {
            expectRefusal(record.result.failure, code: .malformedQuote, errorClass: .format, secretForms: [key.hex])
        }
        #expect(records[0].result.failure?.reason.contains("field 2 has a quote inside an unquoted field") == true)
        #expect(records[1].result.failure?.reason.contains("field 1 has a quote inside an unquoted field") == true)
        #expect(try records[2].result.get().address == other.address)
    }

    @Test func aNULByteInAReferenceRefusesItsRow() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let key = Self.hexKey()
        let records = try Self.readAll(dir.write("nul.csv", "private_key,reference\n\(key.hex),a\u{0}b\n"))
        expectRefusal(
            records.first?.result.failure, code: .invalidReference, errorClass: .validation, secretForms: [key.hex])
        #expect(records.first?.result.failure?.reason == "the reference holds a NUL byte at byte 1")
    }

    @Test func oversizeKeyCellRefusesItsRow() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let key = Self.hexKey()
        let text = "private_key,reference\n\(String(repeating: "a", count: 600)),big\n\(key.hex),fine\n"
        let records = try Self.readAll(dir.write("big.csv", text))
        #expect(records.count == 2)
        expectRefusal(records[0].result.failure, code: .fieldTooLong, errorClass: .format, secretForms: [])
        #expect(try records[1].result.get().address == key.address)
    }

    /// 200,000 rows read with a buffer that does not grow with the file.
    @Test func streamingLargeFileKeepsMemoryFlat() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let path = dir.path + "/large.csv"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let keys = (0..<16).map { _ in Self.hexKey() }
        try handle.write(contentsOf: Data("reference,private_key,type,notes\n".utf8))
        let rows = 200_000
        var chunk = ""
        for row in 0..<rows {
            chunk += "ref-\(row),0x\(keys[row % 16].hex),ethereum,\"note \(row), quoted\"\n"
            if row % 10_000 == 9_999 {
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        try handle.close()
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(size > 20_000_000)

        let reader = try CSVKeyReader(path: path, defaultType: .ethereum, chunkSize: 16 * 1024)
        var count = 0
        var validated = 0
        while let row = try reader.nextRow() {
            count += 1
            #expect(row.problem == nil)
            if count % 5_000 == 1 {
                #expect(try row.parse(defaultType: nil).result.get().address == keys[(count - 1) % 16].address)
                #expect(row.reference == "ref-\(count - 1)")
                validated += 1
            }
        }
        #expect(count == rows)
        #expect(validated == 40)
        // Chunk (16 KiB) + key scratch (512 B) + the kept cells: a few KiB over the chunk at most.
        print("CSV streaming: \(count) rows of a \(size)-byte file, peak buffer \(reader.peakBufferedBytes) bytes")
        #expect(reader.peakBufferedBytes < 24 * 1024)
    }
}

/// `columnNames`: an export's own headers read as the reader's columns, the rest named as not read.
@Suite struct CSVColumnNamesTests {
    @Test func anExportsHeadersAreReadUnderTheirOwnNames() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let key = CSVKeyReaderTests.hexKey()
        let path = try dir.write(
            "export.csv", "PrivKey,label,address,notes,reference\n\(key.hex),treasury,\(key.address),x,ignored\n")
        let reader = try CSVKeyReader(
            path: path, defaultType: .ethereum,
            columnNames: [.privateKey: "privkey", .reference: "label", .expectedAddress: "address"])
        #expect(reader.ignoredColumns == ["notes", "reference"], "a renamed column is read only under its new name")
        let record = try #require(try reader.next())
        #expect(record.reference == "treasury")
        if case .failure(let error) = record.result { Issue.record("the expected address did not match: \(error)") }
        do {
            _ = try CSVKeyReader(path: path, columnNames: [.privateKey: "secret_key"])
            Issue.record("a missing renamed column was accepted")
        } catch {
            #expect(error.reason.contains("no secret_key column, named as the private_key column"), "\(error)")
        }
        let plain = try dir.write("plain.csv", "private_key,label\n\(key.hex),x\n")
        #expect(try CSVKeyReader(path: plain).ignoredColumns == ["label"])
    }
}
