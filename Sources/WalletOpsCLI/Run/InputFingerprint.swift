import Foundation
import Glibc
import WalletCrypto

/// A fingerprint of an input file, stored in the run identity so a resume notices a changed input.
///
/// A file: `size:<bytes>,mtime:<ns>,sha256:<hex of SHA-256 over the first and last 64 KiB>`. Reading
/// only the two ends keeps a multi-gigabyte input cheap to check on every resume, while size and
/// modification time catch edits in the middle (an in-place edit of the same size that keeps the
/// mtime is the one change it misses). A directory: the same over the sorted list of its regular
/// files' names, sizes and mtimes. An input that cannot be read: `missing`.
enum InputFingerprint {
    static let edge = 65_536

    static func of(path: String) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "missing" }
        if isDirectory.boolValue { return directory(path) }
        return file(path)
    }

    private static func stat(_ path: String) -> (size: Int64, mtime: Int64)? {
        var info = Glibc.stat()
        guard lstat(path, &info) == 0 else { return nil }
        let ns = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return (Int64(info.st_size), ns)
    }

    private static func file(_ path: String) -> String {
        guard let (size, mtime) = stat(path), let handle = FileHandle(forReadingAtPath: path) else { return "missing" }
        defer { try? handle.close() }
        var hash = SHA256()
        let head = (try? handle.read(upToCount: edge)) ?? Data()
        hash.update(data: head)
        if size > Int64(edge) {
            let start = UInt64(max(Int64(edge), size - Int64(edge)))
            try? handle.seek(toOffset: start)
            hash.update(data: (try? handle.read(upToCount: edge)) ?? Data())
        }
        return "size:\(size),mtime:\(mtime),sha256:\(Base16.encode(hash.finalize()))"
    }

    private static func directory(_ path: String) -> String {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        var listing = ""
        for name in names {
            let full = (path as NSString).appendingPathComponent(name)
            if let (size, mtime) = stat(full) { listing += "\(name)\t\(size)\t\(mtime)\n" }
        }
        return "dir:\(names.count),sha256:\(Base16.encode(SHA256.hash(data: Array(listing.utf8))))"
    }
}
