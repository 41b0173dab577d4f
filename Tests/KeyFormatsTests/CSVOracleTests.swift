import Foundation
import KeyFormats
import TestSupport
import Testing
import WalletCrypto

/// Random RFC 4180 files read by CSVKeyReader and by Python's csv module agree cell for cell.
@Suite struct CSVOracleTests {
    /// A random reference: commas, quotes, CR, LF, spaces, non-ASCII.
    static func randomText(_ rng: inout SystemRandomNumberGenerator) -> String {
        let pieces = ["a", "b", "Z", "1", ",", "\"", "\n", "\r\n", "\r", " ", "é", "鍵", "-", "''", "x y"]
        return (0..<Int.random(in: 0...12, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    /// The field as CSV: quoted (quotes doubled) when it needs it or at random.
    static func field(_ text: String, _ rng: inout SystemRandomNumberGenerator) -> String {
        // By scalar: "\r\n" is one Character, so a Character test would miss a lone CR or LF.
        let needs = text.unicodeScalars.contains { ",\"\r\n".unicodeScalars.contains($0) }
        return needs || Bool.random(using: &rng)
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    @Test func agreesWithPythonCSV() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        var rng = SystemRandomNumberGenerator()
        let keys = (0..<300).map { _ in Secp256k1.PrivateKey.generate() }
        var text = "\u{FEFF}notes,private_key,reference\r\n"
        for key in keys {
            let newline = ["\n", "\r\n", "\r"].randomElement(using: &rng)!
            let hex = Base16.encode(key.secretBytes.unsafeCopy())
            text +=
                Self.field(Self.randomText(&rng), &rng) + "," + Self.field(hex, &rng) + ","
                + Self.field(Self.randomText(&rng), &rng) + newline
        }
        let path = try dir.write("random.csv", text)
        let script = """
            import csv, json, sys
            with open(sys.argv[1], newline="", encoding="utf-8-sig") as f:
                rows = [r for r in csv.reader(f, strict=True) if r]
            print(json.dumps([r[2] for r in rows[1:]]))
            """
        let output = try PythonOracle.run(script, arguments: [path])
        let references = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String]
        #expect(references.count == keys.count)

        let reader = try CSVKeyReader(path: path, defaultType: .ethereum)
        var index = 0
        while let record = try reader.next() {
            let expected = references[index].trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n"))
            #expect(record.reference == (expected.isEmpty ? nil : expected), "row \(index + 1)")
            #expect(try record.result.get().address == keys[index].ethereumAddress.checksummed, "row \(index + 1)")
            index += 1
        }
        #expect(index == keys.count)
    }
}
