#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of a directory-format input: regular files (symbolic links followed), hidden files
/// (names starting with `.`) and subdirectories skipped, sorted by the bytes of their UTF-8 names so
/// every run visits them in the same order.
///
/// Holds the names and references only (about 200 bytes per file); file contents are read one at a time.
public struct DirectoryListing: Sendable {
    /// One file: its name (the record's `source`), its path and its reference.
    public struct Entry: Sendable, Hashable {
        /// The file name, without the directory.
        public let name: String
        /// The directory and the name.
        public let path: String
        /// The wallet reference of the file's key, unique in the listing (``references(forFileNames:)``).
        public let reference: String
    }

    /// The directory listed.
    public let directory: String
    /// The files, sorted by name.
    public let entries: [Entry]

    /// Lists `directory`.
    ///
    /// - Throws: `KeyFormatError` `.readFailed` or `.notAFile` (class `io`).
    public init(directory: String) throws(KeyFormatError) {
        self.directory = directory
        guard let handle = opendir(directory) else {
            throw KeyFormatError(
                errno == ENOENT ? .fileNotFound : .readFailed,
                "cannot list the directory: \(String(cString: strerror(errno)))", file: directory)
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.isEmpty || name.hasPrefix(".") { continue }
            var info = stat()
            guard stat(Self.join(directory, name), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            names.append(name)
        }
        names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        entries = zip(names, Self.references(forFileNames: names)).map {
            Entry(name: $0, path: Self.join(directory, $0), reference: $1)
        }
    }

    /// `directory/name`.
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The last path component of `path`.
    public static func fileName(of path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }

    /// The reference of a key file: the address of a geth keystore's name
    /// (`UTC--2019-01-01T00-00-00.000000000Z--9d90...` -> `0x9d90...`: unique per key, where the time
    /// is only unique per second), else the name without its extension when that is letters
    /// (`key1.json` -> `key1`; `.hidden`, `noext` and `a.1` kept whole).
    public static func defaultReference(forFileName name: String) -> String {
        if let address = gethAddress(inFileName: name) { return "0x" + address }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        let extensionPart = name[name.index(after: dot)...]
        guard (1...8).contains(extensionPart.utf8.count),
            extensionPart.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { return name }
        return String(name[..<dot])
    }

    /// The references of one directory's files, in the order given: each file's
    /// ``defaultReference(forFileName:)``, except that files whose references would be the same
    /// (`a.json` and `a.key`; two geth keystores of one address) take their whole file name instead, so no
    /// two files of the directory share a reference (names are unique in a directory).
    ///
    /// The names are the whole rule, nothing is read from the files: a resumed run, which skips finished
    /// files without opening them, gives every file the reference it had (a changed directory is other
    /// work, by its fingerprint).
    public static func references(forFileNames names: [String]) -> [String] {
        var references = names.map(defaultReference(forFileName:))
        // A file moved to its whole name may meet another's reference (`a.json` beside `a.json.bak`'s
        // `a.json`): repeat until no reference is shared; each round moves at least one file for good.
        while true {
            var holders: [String: [Int]] = [:]
            for (index, reference) in references.enumerated() { holders[reference, default: []].append(index) }
            var moved = false
            for indices in holders.values where indices.count > 1 {
                for index in indices where references[index] != names[index] {
                    references[index] = names[index]
                    moved = true
                }
            }
            if !moved { return references }
        }
    }

    /// The 40 hex digits (lowercased) that end a geth keystore file name `UTC--<time>--<address>`.
    static func gethAddress(inFileName name: String) -> String? {
        let bytes = Array(name.utf8)
        guard name.hasPrefix("UTC--"), bytes.count > 47, bytes[bytes.count - 41] == 0x2D,
            bytes[bytes.count - 42] == 0x2D
        else { return nil }
        let address = bytes[(bytes.count - 40)...]
        let isHex = address.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0)
        }
        return isHex ? String(decoding: address, as: UTF8.self).lowercased() : nil
    }
}
