import WalletCrypto

/// Recursive Length Prefix encoding, the serialization of Ethereum transactions
/// (Ethereum Yellow Paper, Appendix B).
enum RLP {
    /// An item: a byte string or a list of items.
    indirect enum Item: Sendable, Equatable {
        case bytes([UInt8])
        case list([Item])

        /// An unsigned integer: big-endian with no leading zero bytes (zero is the empty string).
        static func integer(_ value: UInt64) -> Item {
            var bytes: [UInt8] = []
            var rest = value
            while rest > 0 {
                bytes.insert(UInt8(rest & 0xff), at: 0)
                rest >>= 8
            }
            return .bytes(bytes)
        }

        static func integer(_ value: TokenAmount) -> Item { .bytes(Array(value.bigEndianBytes.drop { $0 == 0 })) }
    }

    static func encode(_ item: Item) -> [UInt8] {
        switch item {
        case .bytes(let bytes):
            if bytes.count == 1 && bytes[0] < 0x80 { return bytes }
            return header(count: bytes.count, offset: 0x80) + bytes
        case .list(let items):
            let payload = items.flatMap(encode)
            return header(count: payload.count, offset: 0xc0) + payload
        }
    }

    private static func header(count: Int, offset: UInt8) -> [UInt8] {
        if count <= 55 { return [offset + UInt8(count)] }
        let length = Item.integer(UInt64(count))
        guard case .bytes(let lengthBytes) = length else { return [] }
        return [offset + 55 + UInt8(lengthBytes.count)] + lengthBytes
    }
}
