import Foundation

/// Lists the regular files of a directory (not recursive), sorted by name, filtered by a glob.
public enum DirectoryLister {
    /// One file.
    public struct Entry: Sendable, Hashable {
        /// The file name.
        public var name: String
        /// The directory path joined with the name.
        public var path: String

        /// The entry as a template item: `{name, path}`.
        public var item: TemplateValue { .object(["name": .string(name), "path": .string(path)]) }
    }

    /// The files of `directory` whose names match `glob` (all if `nil`), sorted by name in byte order.
    /// Hidden files (starting with `.`) are listed only when the glob itself starts with `.`. A relative
    /// `directory` is read in `folder` (nil: the process's working directory); the entries' paths join
    /// `directory` as given.
    ///
    /// - Throws: ``InputError`` if the directory cannot be read.
    public static func list(directory: String, glob: String? = nil, in folder: URL? = nil) throws(InputError)
        -> [Entry]
    {
        let opened = InputReader.fileURL(directory, in: folder).path
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: opened)
        } catch {
            let exists = FileManager.default.fileExists(atPath: opened)
            throw InputError(
                file: directory, message: exists ? "cannot list the directory" : "no such directory",
                problem: exists ? .unreadable : .missing)
        }
        let pattern = glob.map(Glob.init)
        var entries: [Entry] = []
        for name in names {
            if name.hasPrefix("."), glob?.hasPrefix(".") != true { continue }
            if let pattern, !pattern.matches(name) { continue }
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var isDirectory: ObjCBool = false
            guard
                FileManager.default.fileExists(
                    atPath: InputReader.fileURL(path, in: folder).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { continue }
            entries.append(Entry(name: name, path: path))
        }
        return entries.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
    }
}
