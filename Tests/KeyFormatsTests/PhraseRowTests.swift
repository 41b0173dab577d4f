import Foundation
import KeyFormats
import TestSupport
import Testing
import WalletCrypto

/// Phrase files through the one CSV reader: the phrase and passphrase as secret cells, the columns of
/// the other kind ignored, the count and indices cells, records per account.
@Suite struct PhraseRowTests {
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

    /// A scan: expected addresses and no count or indices. Each address is found along the row's path or
    /// every layout of the type within the gap limit, and its source names the path that produced it; the
    /// addresses not found are one refusal naming the paths tried.
    @Test func aScanFindsEachExpectedAddressAndNamesItsPath() throws {
        let mnemonic = try Mnemonic(phrase: SecretBytes(Array(Self.phrase.utf8)))
        func address(_ layout: DerivationScheme.Layout, _ index: UInt32) throws -> String {
            try PhraseAccounts.derive(
                mnemonic, passphrase: SecretBytes([]), type: .ethereum, scheme: DerivationScheme(layout),
                indices: [index]
            )[0].secret.derived().address
        }
        let metamask7 = try address(.ethereum, 7)
        let ledger3 = try address(.ledgerLiveEthereum, 3).lowercased()
        let far = try address(.ethereum, 25)
        let nowhere = "0x000000000000000000000000000000000000dEaD"
        let dir = try TestDirectory()
        defer { dir.remove() }
        let path = try dir.write(
            "scan.csv",
            "mnemonic,path,expected_address,gap_limit,type\n"
                + "\(Self.phrase),,\(metamask7) \(ledger3),,ethereum\n"
                + "\(Self.phrase),,\(metamask7);\(nowhere),,ethereum\n"
                + "\(Self.phrase),ethereum,\(far),,ethereum\n"
                + "\(Self.phrase),ethereum,\(far),30,ethereum\n")
        let reader = try CSVKeyReader(path: path, kind: .phrases)
        var rows: [[SecretRecord]] = []
        while let row = try reader.nextPhraseRow() { rows.append(row.records(defaultType: nil, referencePrefix: "s")) }
        #expect(rows[0].map(\.source) == ["1:m/44'/60'/0'/0/7", "1:m/44'/60'/3'/0/0"])
        #expect(rows[0].map(\.reference) == ["s-1-7", "s-1-3"])
        #expect(
            try rows[0].map { try $0.result.get().derived().address.lowercased() } == [metamask7.lowercased(), ledger3])
        #expect(rows[1].map(\.source) == ["2:m/44'/60'/0'/0/7", "2"])
        let missing = try #require(rows[1][1].result.failure)
        #expect(missing.code == .expectedAddressMismatch)
        #expect(missing.reason.contains(nowhere) && !missing.reason.contains(metamask7))
        #expect(missing.reason.contains("ethereum (m/44'/60'/0'/0/0 to m/44'/60'/0'/0/27)"), "found at 7, then 20 more")
        #expect(missing.reason.contains("ledger-live-ethereum (m/44'/60'/0'/0/0 to m/44'/60'/19'/0/0)"))
        #expect(rows[2].map(\.source) == ["3"], "index 25 is past the default gap of 20")
        #expect(rows[3].map(\.source) == ["4:m/44'/60'/0'/0/25"])
    }

    /// A Solana scan without a path tries every Solana layout, `solana-keygen` (no path: the seed's first
    /// half) last: a keypair the CLI made without `--derivation-path` is found, named by the path `m`.
    @Test func aSolanaScanFindsTheKeygenKeyWithoutAPath() throws {
        let mnemonic = try Mnemonic(phrase: SecretBytes(Array(Self.phrase.utf8)))
        let keygen = try PhraseAccounts.derive(
            mnemonic, passphrase: SecretBytes([]), type: .solana, scheme: DerivationScheme(.solanaKeygen), indices: [0]
        )[0].secret.derived().address
        let dir = try TestDirectory()
        defer { dir.remove() }
        let path = try dir.write(
            "keygen.csv",
            "mnemonic,path,expected_address,type\n\(Self.phrase),,\(keygen),solana\n"
                + "\(Self.phrase),solana-keygen,,solana\n")
        let reader = try CSVKeyReader(path: path, kind: .phrases)
        var rows: [[SecretRecord]] = []
        while let row = try reader.nextPhraseRow() { rows.append(row.records(defaultType: nil, referencePrefix: "k")) }
        #expect(rows[0].map(\.source) == ["1:m"])
        #expect(try rows[0].map { try $0.result.get().derived().address } == [keygen])
        #expect(rows[1].map(\.source) == ["2:0"] && rows[1].map(\.reference) == ["k-2-0"])
        #expect(try rows[1].map { try $0.result.get().derived().address } == [keygen])
    }

    /// A phrase in the wrong column (path, count, indices, gap_limit) refuses the row without echoing it:
    /// only cells of path or number characters are ever quoted.
    @Test func aPhraseInTheWrongColumnIsNeverEchoed() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let mad = "mad " + Self.phrase
        let path = try dir.write(
            "misplaced.csv",
            "mnemonic,path,count,indices,gap_limit,expected_address\n" + "\(Self.phrase),\(Self.phrase),,,,\n"
                + "\(Self.phrase),\(mad),,,,\n" + "\(Self.phrase),,\(Self.phrase),,,\n"
                + "\(Self.phrase),,,\(Self.phrase),,\n"
                + "\(Self.phrase),,,,\(Self.phrase),0x58A57ed9d8d624cBD12e2C467D34787555bB1b25\n"
                + "\(Self.phrase),,,,,\(Self.phrase)\n")
        let reader = try CSVKeyReader(path: path, kind: .phrases)
        var reasons: [String] = []
        while let row = try reader.nextPhraseRow() {
            let records = row.records(defaultType: .ethereum, referencePrefix: "p")
            #expect(records.count == 1)
            reasons.append(try #require(records[0].result.failure).description)
        }
        #expect(reasons.count == 6)
        for reason in reasons {
            for word in Set(Self.phrase.split(separator: " ")) { #expect(!reason.contains(word), "\(reason)") }
        }
    }
}
