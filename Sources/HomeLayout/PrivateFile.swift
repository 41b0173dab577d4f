import Foundation

/// A file only its owner can read, for keys and credentials: how a secret goes to disk.
///
/// The file is created with mode 0600 before its first byte is written and replaced atomically (a temporary
/// file, fsync, rename), so no other user can read it and a crash never leaves half a key.
public enum PrivateFile {
    /// Writes `bytes` to `url`, replacing what was there.
    ///
    /// - Throws: `PrivateFileError` naming the path and the system's reason, never the bytes.
    public static func write(_ bytes: some Collection<UInt8>, to url: URL) throws(PrivateFileError) {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw PrivateFileError("cannot create \(temporary.path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        _ = fchmod(fd, 0o600)
        guard writeAll(Array(bytes), to: fd) else {
            throw PrivateFileError("cannot write \(temporary.path): \(String(cString: strerror(errno)))")
        }
        guard fsync(fd) == 0 else { throw PrivateFileError("cannot sync \(temporary.path)") }
        guard rename(temporary.path, url.path) == 0 else {
            throw PrivateFileError("cannot move \(temporary.path) into place: \(String(cString: strerror(errno)))")
        }
    }
}

/// A private file that could not be written: the path and the reason, never the contents.
public struct PrivateFileError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Writes every byte to `fd`, resuming after short writes; false on an error (see `errno`).
private func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
    var written = 0
    while written < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
        guard n > 0 else { return false }
        written += n
    }
    return true
}
