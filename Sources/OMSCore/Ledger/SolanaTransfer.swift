import WalletCrypto

/// A Solana legacy transaction moving lamports with the System Program's `Transfer` instruction,
/// signed by the sender: `[compact 1][signature 64][message]`, the message being header
/// `[1, 0, 1]`, the accounts `[from, to, System Program]`, the recent blockhash, and one instruction
/// (program index 2, accounts [0, 1], data u32 LE 2 || u64 LE lamports). See
/// <https://solana.com/docs/core/transactions>.
struct SolanaTransfer: Sendable {
    var from: [UInt8]
    var to: [UInt8]
    var lamports: UInt64
    /// The ledger reaches no cluster, so this is its own value (docs/protocol.md "Transactions").
    var recentBlockhash: [UInt8]

    /// The System Program's id: 32 zero bytes (base58 `11111111111111111111111111111111`).
    static let systemProgram = [UInt8](repeating: 0, count: 32)
    /// A signature's fee in lamports, the cluster default.
    static let feeLamports: UInt64 = 5_000

    /// The message bytes the sender signs.
    var message: [UInt8] {
        var bytes: [UInt8] = [1, 0, 1, 3]
        bytes += from + to + Self.systemProgram + recentBlockhash
        bytes += [1, 2, 2, 0, 1, 12]
        bytes += Self.littleEndian(UInt64(2), count: 4) + Self.littleEndian(lamports, count: 8)
        return bytes
    }

    /// The signed transaction and its signature (Solana's transaction id).
    func signed(with key: Ed25519.PrivateKey) -> (raw: [UInt8], signature: [UInt8]) {
        let signature = key.signature(for: message)
        return ([1] + signature + message, signature)
    }

    static func littleEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
