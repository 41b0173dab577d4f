import Foundation
import KeyFormats
import TestSupport
import Testing
import WalletCrypto

/// Phrase files through the one CSV reader: the phrase and passphrase as secret cells, the columns of
/// the other kind ignored, the count and indices cells, records per account.
@Suite struct CSVPhraseRowTests {
    static let phrase = MnemonicTests.valid

    @Test func rowsExpandIntoOneRecordPerAccount() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let path = try dir.write(
            "phrases.csv",
            "Mnemonic,Passphrase,Path,Count,Indices,Reference,Private_Key\n"
                + "\(Self.phrase),,ethereum,3,,alice,ignored\n"
                + "\"\(Self.phrase)\",pw,phantom,,\"5,1-2\",,\n"
                + "\(Self.phrase),,,,,,\n"
                + "\(Self.phrase),,ethereum,2,4,both,\n")
        let reader = try CSVKeyReader(path: path, kind: .phrases)
        var rows: [[SecretRecord]] = []
        var counts: [Int] = []
        while let row = try reader.nextPhraseRow() {
            counts.append(row.recordCount)
            rows.append(row.records(defaultType: .ethereum, referencePrefix: "import"))
        }
        #expect(counts == [3, 3, 1, 1])
        #expect(rows[0].map(\.source) == ["1:0", "1:1", "1:2"])
        #expect(rows[0].map(\.reference) == ["alice-0", "alice-1", "alice-2"])
        #expect(rows[1].map(\.source) == ["2:5", "2:1", "2:2"])
        #expect(rows[1].allSatisfy { (try? $0.result.get().type) == .solana }, "the layout's type")
        #expect(rows[2].map(\.reference) == ["import-3-0"])
        #expect(rows[3].map(\.source) == ["4"])
        #expect(rows[3][0].result.failure?.code == .invalidIndices)
        // Row 1's account 0 on the ethereum layout is the address every BIP-39 tool gives for this phrase.
        let first = try rows[0][0].result.get().derived()
        #expect(first.address == "0x58A57ed9d8d624cBD12e2C467D34787555bB1b25")
    }

    /// A key file keeps no phrase cell and a phrase file no key cell: the other kind's secret column is
    /// ignored, never read into a `String`.
    @Test func theOtherKindsSecretColumnsAreIgnored() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let keys = try dir.write(
            "keys.csv", "private_key,mnemonic\n\(String(repeating: "1", count: 64)),\(Self.phrase)\n")
        let keyReader = try CSVKeyReader(path: keys, defaultType: .ethereum)
        let row = try #require(try keyReader.nextRow())
        #expect(row.reference == nil && row.type == nil && row.expectedAddress == nil)
        let noPhrase = try dir.write("none.csv", "private_key,reference\n11,a\n")
        #expect(throws: KeyFormatError(.missingColumn, "")) { try CSVKeyReader(path: noPhrase, kind: .phrases) }
    }

    @Test func indicesCellsAreRead() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let cells = ["0;3;7", "0 1 2", "\"2-4,9\"", "7-7", "a", "3-1", "2147483648", "0-1000", "\"\"", "1--2"]
        let path = try dir.write(
            "indices.csv", "mnemonic,indices\n" + cells.map { "\(Self.phrase),\($0)\n" }.joined())
        let reader = try CSVKeyReader(path: path, kind: .phrases)
        var sources: [[String]] = []
        var codes: [KeyFormatError.Code?] = []
        while let row = try reader.nextPhraseRow() {
            let records = row.records(defaultType: .ethereum, referencePrefix: "p")
            sources.append(records.map(\.source))
            codes.append(records[0].result.failure?.code)
        }
        #expect(sources[0] == ["1:0", "1:3", "1:7"])
        #expect(sources[1] == ["2:0", "2:1", "2:2"])
        #expect(sources[2] == ["3:2", "3:3", "3:4", "3:9"])
        #expect(sources[3] == ["4:7"])
        #expect(codes[4...8] == [.invalidIndices, .invalidIndices, .invalidIndices, .invalidIndices, nil])
        #expect(sources[8] == ["9:0"], "an empty cell is absent: account 0")
        #expect(codes[9] == .invalidIndices)
    }
}
