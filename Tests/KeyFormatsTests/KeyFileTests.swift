import Foundation
import KeyFormats
import Testing
import WalletCrypto

#if canImport(Glibc)
import Glibc
#endif

/// Directory listings, raw and keypair-JSON files, and password sources.
@Suite struct KeyFileTests {
    @Test func listingIsSortedAndSkipsHiddenFilesAndDirectories() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        for name in ["b.bin", "a.bin", ".hidden.bin", "B.bin", "a10.bin", "a2.bin"] { try dir.write(name, [1]) }
        try FileManager.default.createDirectory(atPath: dir.path + "/sub", withIntermediateDirectories: false)
        let listing = try DirectoryListing(directory: dir.path)
        #expect(listing.entries.map(\.name) == ["B.bin", "a.bin", "a10.bin", "a2.bin", "b.bin"])
        #expect(listing.entries.first?.path == dir.path + "/B.bin")
        #expect(DirectoryListing.defaultReference(forFileName: "key.tar.json") == "key.tar")
        #expect(DirectoryListing.defaultReference(forFileName: "UTC--2016--abc") == "UTC--2016--abc")
        // geth's names: the address, not the time (two files of one second would collide).
        let address = "9d90A4a5B6c7D8e9F0a1B2c3D4e5F6a7B8c9D0e1"
        for time in ["2019-01-01T00-00-00.000000000Z", "2019-01-01T00-00-00.500000000Z"] {
            #expect(
                DirectoryListing.defaultReference(forFileName: "UTC--\(time)--\(address)")
                    == "0x" + address.lowercased())
        }
        #expect(DirectoryListing.defaultReference(forFileName: "UTC--2019--\(address.dropLast())x") != "0x")
        #expect(DirectoryListing.defaultReference(forFileName: "wallet.v3.json") == "wallet.v3")
        #expect(DirectoryListing.defaultReference(forFileName: "export.2024") == "export.2024")
        let missing = refusal { () throws(KeyFormatError) in try DirectoryListing(directory: dir.path + "/nope") }
        expectRefusal(missing, code: .fileNotFound, errorClass: .io, secretForms: [])
    }

    /// No two files of a directory share a reference: the file-name rule where it is unique (existing
    /// inputs keep their references), the whole file name for the files it would give one reference.
    @Test func referencesAreUniquePerFileOfADirectory() throws {
        let address = "9d90a4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1"
        let geth = [
            "UTC--2019-01-01T00-00-00.000000000Z--\(address)",
            "UTC--2019-01-01T00-00-00.000000000Z--\(address.uppercased())",
        ]
        let names =
            ["a.json", "a.key", "a.json.bak", "b.json", "c", "c.json"] + geth + [
                "UTC--2019-01-01T00-00-00.000000000Z--1111111111111111111111111111111111111111"
            ]
        let references = DirectoryListing.references(forFileNames: names)
        #expect(Set(references).count == names.count, "\(references)")
        #expect(
            references == [
                // a.json and a.key would both be `a`; then a.json meets a.json.bak's `a.json`.
                "a.json", "a.key", "a.json.bak", "b", "c", "c.json", geth[0], geth[1],
                "0x1111111111111111111111111111111111111111",
            ], "\(references)")
        // Without a collision the listing's references are the names' (what a resume of an older run sees).
        let plain = ["k1.json", "k2.json", geth[0], "export.2024"]
        #expect(DirectoryListing.references(forFileNames: plain) == plain.map(DirectoryListing.defaultReference))

        // The listing carries them, and the readers give the records the listing's reference.
        let dir = try TestDirectory()
        defer { dir.remove() }
        let key = Secp256k1.PrivateKey.generate()
        for name in ["a.json", "a.key", "b.key"] { try dir.write(name, key.secretBytes.unsafeCopy()) }
        let listing = try DirectoryListing(directory: dir.path)
        #expect(listing.entries.map(\.reference) == ["a.json", "a.key", "b"])
        let reader = try KeyDirectoryReader(directory: dir.path, format: .raw(.ethereum))
        #expect(Array(reader).map(\.reference) == ["a.json", "a.key", "b"])
    }

    @Test func rawEthereumDirectory() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let keys = (0..<3).map { _ in Secp256k1.PrivateKey.generate() }
        for (index, key) in keys.enumerated() { try dir.write("k\(index).key", key.secretBytes.unsafeCopy()) }
        try dir.write("k3.key", Array(Base16.encode(keys[0].secretBytes.unsafeCopy()).prefix(32).utf8))  // text
        try dir.write("k4.key", [UInt8](repeating: 0, count: 32))  // zero
        try dir.write("k5.key", keys[1].secretBytes.unsafeCopy() + [0x0A])  // 33 bytes
        let records = Array(try KeyDirectoryReader(directory: dir.path, format: .raw(.ethereum)))
        #expect(records.map(\.source) == ["k0.key", "k1.key", "k2.key", "k3.key", "k4.key", "k5.key"])
        for index in 0..<3 {
            #expect(try records[index].result.get().address == keys[index].ethereumAddress.checksummed)
            #expect(records[index].reference == "k\(index)")
        }
        #expect(records[3].result.failure?.code == .notRawBytes)
        #expect(records[4].result.failure?.code == .zeroKey)
        #expect(records[5].result.failure?.code == .wrongLength)
        #expect(records[5].result.failure?.source == "k5.key")
        #expect(records[5].result.failure?.description.contains("k5.key: expected 32 raw bytes") == true)
    }

    @Test func textKeyFiles() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let eth = Secp256k1.PrivateKey.generate()
        let sol = Ed25519.PrivateKey.generate()
        var solText = Base58.encode(sol.keypairBytes.unsafeCopy())
        if solText.count == 64 { solText = Base58.encode(sol.seed.unsafeCopy()) }
        let ethPath = try dir.write("eth.txt", "0x" + Base16.encode(eth.secretBytes.unsafeCopy()) + "\n")
        let solPath = try dir.write("sol.txt", solText + "\r\n")
        #expect(
            try KeyFile.read(path: ethPath, format: .text(.ethereum)).result.get().address
                == eth.ethereumAddress.checksummed)
        #expect(try KeyFile.read(path: solPath, format: .text(.solana)).result.get().address == sol.solanaAddress)
        let big = try dir.write("big.txt", String(repeating: "a", count: 5000))
        expectRefusal(
            KeyFile.read(path: big, format: .text(.ethereum)).result.failure, code: .fileTooLarge, errorClass: .io,
            secretForms: [])
    }

    /// A key file whose format is not stated: raw only when it has a raw key's length and is not text.
    @Test func formatOfUnstatedContents() throws {
        let eth = Secp256k1.PrivateKey.generate()
        let sol = Ed25519.PrivateKey.generate()
        var scalar = eth.secretBytes.unsafeCopy()
        // A key whose bytes are all text would be read as text: make one byte a control byte.
        scalar[0] = 0x01
        var keypair = sol.keypairBytes.unsafeCopy()
        keypair[0] = 0x01
        let cases: [([UInt8], KeyType, KeyFile.Format)] = [
            (scalar, .ethereum, .raw(.ethereum)),
            (Array(keypair.prefix(32)), .solana, .raw(.solana)),
            (keypair, .solana, .raw(.solana)),
            (keypair, .ethereum, .text(.ethereum)),  // 64 bytes is no Ethereum raw key
            (scalar + [0x0A], .ethereum, .text(.ethereum)),
            (Array(String(repeating: "a", count: 31).utf8) + [0x0A], .ethereum, .text(.ethereum)),
            (Array(String(repeating: "a", count: 63).utf8) + [0x0C], .solana, .text(.solana)),
            (Array(" \n[1, 2]".utf8), .solana, .solanaKeypairJSON),
            (Array("[1, 2]".utf8), .ethereum, .text(.ethereum)),
            (Array("x[1, 2]".utf8), .solana, .text(.solana)),
        ]
        for (index, (bytes, type, expected)) in cases.enumerated() {
            #expect(KeyFile.format(of: SecretBytes(bytes), type: type) == expected, "case \(index)")
        }
        // What it picks, parse reads.
        let secret = SecretBytes(scalar)
        let parsed = try KeyFile.parse(secret, format: KeyFile.format(of: secret, type: .ethereum))
        #expect(parsed.secret == secret)
        let validated = try KeyFile.validate(secret, format: .raw(.ethereum))
        #expect(validated.secret == secret && validated.type == .ethereum)
    }

    @Test func solanaKeypairJSONForms() throws {
        let key = Ed25519.PrivateKey.generate()
        let bytes = key.keypairBytes.unsafeCopy()
        let numbers = bytes.map(String.init)
        let forms = [
            "[" + numbers.joined(separator: ",") + "]",
            " \n[ " + numbers.joined(separator: " ,\n\t") + " ]\n",
        ]
        for form in forms {
            let secret = try KeyFile.solanaKeypairJSON(SecretBytes(Array(form.utf8)))
            #expect(try KeyParser.parse(secret, type: .solana, encoding: .raw).address == key.solanaAddress)
        }
        let other = Ed25519.PrivateKey.generate().publicKey.rawRepresentation.map(String.init)
        let mismatch = "[" + (numbers.prefix(32) + other).joined(separator: ",") + "]"
        let bad: [(String, KeyFormatError.Code)] = [
            ("[" + numbers.prefix(63).joined(separator: ",") + "]", .wrongLength),
            ("[" + numbers.joined(separator: ",") + ",1]", .wrongLength),
            ("[" + numbers.joined(separator: ",") + "", .malformedJSON),
            ("[" + numbers.dropFirst().joined(separator: ",") + ",256]", .malformedJSON),
            ("[" + numbers.dropFirst().joined(separator: ",") + ",-1]", .malformedJSON),
            ("[" + numbers.dropFirst().joined(separator: ",") + ",01]", .malformedJSON),
            ("{\"key\": 1}", .malformedJSON),
            ("[" + numbers.joined(separator: ",") + "] x", .malformedJSON),
        ]
        let dir = try TestDirectory()
        defer { dir.remove() }
        for (index, (text, code)) in bad.enumerated() {
            let record = KeyFile.read(path: try dir.write("bad\(index).json", text), format: .solanaKeypairJSON)
            expectRefusal(
                record.result.failure, code: code, errorClass: code.errorClass,
                secretForms: [numbers.prefix(8).joined(separator: ","), numbers.prefix(8).joined(separator: ", ")])
        }
        let record = KeyFile.read(path: try dir.write("mismatch.json", mismatch), format: .solanaKeypairJSON)
        expectRefusal(record.result.failure, code: .keypairMismatch, errorClass: .validation, secretForms: [])
    }

    @Test func passwordSources() throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        // A variable set before the process started (make test exports WALLETOPS_TEST_PASSWORD=pässword;
        // else HOME): setenv here would race with the processes other tests start.
        let variable =
            ProcessInfo.processInfo.environment["WALLETOPS_TEST_PASSWORD"] != nil ? "WALLETOPS_TEST_PASSWORD" : "HOME"
        let expected = try #require(ProcessInfo.processInfo.environment[variable])
        #expect(try PasswordSource.environment(variable).password(for: "x") == SecretBytes(Array(expected.utf8)))
        let unset = refusal { () throws(KeyFormatError) in
            try PasswordSource.environment(variable + "_NO").password(for: "x")
        }
        expectRefusal(unset, code: .missingPassword, errorClass: .decryption, secretForms: [])

        try dir.write("pw1.txt", "secret one\n")
        try dir.write("pw2.txt", "secret two\r\n")
        try dir.write("pw3.txt", "kept \n\n")
        try dir.write("empty.txt", "")
        #expect(
            try PasswordSource.file(dir.path + "/pw1.txt").password(for: "x") == SecretBytes(Array("secret one".utf8)))
        #expect(
            try PasswordSource.file(dir.path + "/pw2.txt").password(for: "x") == SecretBytes(Array("secret two".utf8)))
        #expect(try PasswordSource.file(dir.path + "/pw3.txt").password(for: "x") == SecretBytes(Array("kept \n".utf8)))
        #expect(try PasswordSource.file(dir.path + "/empty.txt").password(for: "x").isEmpty)

        try dir.write("map.json", #"{"a.json": {"file": "pw1.txt"}, "b.json": {"env": "\#(variable)"}}"#)
        let jsonMap = PasswordSource.map(try PasswordMap(contentsOf: dir.path + "/map.json"))
        #expect(try jsonMap.password(for: "a.json") == SecretBytes(Array("secret one".utf8)))
        #expect(try jsonMap.password(for: "b.json") == SecretBytes(Array("pässword".utf8)))
        let unmapped = refusal { () throws(KeyFormatError) in try jsonMap.password(for: "c.json") }
        expectRefusal(unmapped, code: .missingPassword, errorClass: .decryption, secretForms: [])

        try dir.write("map.csv", "file,password_file,password_env\r\na.json,pw2.txt,\r\n\"b.json\",,\(variable)\r\n")
        let csvMap = PasswordSource.map(try PasswordMap(contentsOf: dir.path + "/map.csv"))
        #expect(try csvMap.password(for: "a.json") == SecretBytes(Array("secret two".utf8)))
        #expect(try csvMap.password(for: "b.json") == SecretBytes(Array("pässword".utf8)))
        try dir.write("both.csv", "file,password_file,password_env\na.json,pw1.txt,\(variable)\n")
        let both = refusal { () throws(KeyFormatError) in try PasswordMap(contentsOf: dir.path + "/both.csv") }
        #expect(both?.errorClass == .format)
    }
}
