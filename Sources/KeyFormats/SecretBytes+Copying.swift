import WalletCrypto

extension SecretBytes {
    /// A secret copy of `bytes`, written straight into the secret buffer.
    ///
    /// `SecretBytes.init(_:)` goes through an intermediate array; its wipe acts on a copy-on-write
    /// duplicate, so the first array is freed unwiped. This path has no intermediate copy.
    static func copying(_ bytes: UnsafeRawBufferPointer) -> SecretBytes {
        SecretBytes(count: bytes.count) { out in
            if let base = bytes.baseAddress, !bytes.isEmpty {
                out.copyMemory(from: UnsafeRawBufferPointer(start: base, count: bytes.count))
            }
        }
    }
}
