/// Reads a directory of key files (raw bytes, text keys or Solana keypair JSON), one file at a time, in the
/// order of ``DirectoryListing``: each file is one record whose source is its file name.
///
/// Keystore directories are decrypted through ``KeystoreDecryptionPool/decryptFile(at:passwords:)``
/// over a ``DirectoryListing`` instead, since they need passwords and bounded parallel work.
public struct KeyDirectoryReader: Sendable, Sequence {
    /// The files to read.
    public let listing: DirectoryListing
    /// Their format.
    public let format: KeyFile.Format

    /// Lists `directory` for files of `format`.
    ///
    /// - Throws: `KeyFormatError` (class `io`) when the directory cannot be listed.
    public init(directory: String, format: KeyFile.Format) throws(KeyFormatError) {
        listing = try DirectoryListing(directory: directory)
        self.format = format
    }

    /// Reads each file when the iteration reaches it.
    public func makeIterator() -> Iterator { Iterator(entries: listing.entries[...], format: format) }

    /// Yields one ``KeyRecord`` per file.
    public struct Iterator: IteratorProtocol {
        var entries: ArraySlice<DirectoryListing.Entry>
        let format: KeyFile.Format

        public mutating func next() -> KeyRecord? {
            guard let entry = entries.popFirst() else { return nil }
            return KeyFile.read(path: entry.path, format: format, reference: entry.reference)
        }
    }
}
