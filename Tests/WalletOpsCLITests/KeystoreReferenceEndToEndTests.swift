import Foundation
import TestSupport
import Testing

/// A keystore directory whose names the old rule gave one reference twice (issue 25): two geth files of one
/// second, and `a.json` beside `a.key`. Imported through the shipped playbook, every file is one wallet
/// with its own reference: the geth files by their addresses, the other two by their whole names.
@Suite struct KeystoreReferenceEndToEndTests {
    @Test func everyFileOfAKeystoreDirectoryGetsItsOwnReference() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        let directory = world.path("keystores")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("reference-test-password".utf8).write(to: URL(fileURLWithPath: world.path("password.txt")))
        // eth-account writes the files (an independent implementation) and prints each name and address.
        let made = try PythonOracle.run(
            """
            import hashlib, json, os, sys
            from eth_account import Account
            folder, password = sys.argv[1], sys.argv[2]
            for i, name in enumerate(["geth", "geth", "a.json", "a.key"]):
                key = hashlib.sha256(b"walletops keystore reference test %d" % i).hexdigest()
                address = Account.from_key(key).address
                if name == "geth":
                    name = "UTC--2019-01-01T00-00-00.000000000Z--" + address[2:].lower()
                document = Account.encrypt(key, password, kdf="pbkdf2", iterations=1000)
                with open(os.path.join(folder, name), "w") as out:
                    json.dump(document, out)
                print(name, address)
            """, arguments: [directory, "reference-test-password"])
        let files = made.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        try #require(files.count == 4 && files.allSatisfy { $0.count == 2 }, "\(made)")
        let result = try world.run(
            "jobs/import-keys.yaml",
            [
                "input": directory, "format": "keystore-dir", "password_file": world.path("password.txt"),
                "output": world.path("imported.csv"), "rejects": world.path("rejects.csv"),
            ])
        #expect(result.status == 0, "\(result)")
        let imported = world.rows("imported.csv")
        var expected: [String: String] = [:]
        for file in files {
            expected[file[0]] = file[0].hasPrefix("UTC--") ? "0x" + file[1].dropFirst(2).lowercased() : file[0]
        }
        #expect(
            Dictionary(uniqueKeysWithValues: imported.map { ($0["source"]!, $0["reference"]!) }) == expected,
            "\(imported)")
        #expect(Set(imported.map { $0["reference"]! }).count == 4)
        #expect(
            Dictionary(uniqueKeysWithValues: imported.map { ($0["source"]!, $0["address"]!) })
                == Dictionary(uniqueKeysWithValues: files.map { ($0[0], $0[1]) }), "the address oracle: \(imported)")
    }
}
