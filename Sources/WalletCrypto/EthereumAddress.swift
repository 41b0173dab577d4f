public import Foundation

/// A 20-byte Ethereum account address, written with the EIP-55 mixed-case checksum.
///
/// See <https://eips.ethereum.org/EIPS/eip-55>.
public struct EthereumAddress: Sendable, Hashable, CustomStringConvertible {
    /// The 20 address bytes.
    public let bytes: [UInt8]

    /// An address from exactly 20 bytes.
    ///
    /// - Throws: `ECCError.Code.invalidAddress` for any other length.
    public init(bytes: some ContiguousBytes) throws(ECCError) {
        let raw = bytes.withUnsafeBytes { Array($0) }
        guard raw.count == 20 else {
            throw ECCError(.invalidAddress, "Ethereum address: expected 20 bytes, got \(raw.count)")
        }
        self.bytes = raw
    }

    /// The address of a secp256k1 public key: the last 20 bytes of keccak256(X || Y).
    public init(publicKey: Secp256k1.PublicKey) {
        var digest = [UInt8](repeating: 0, count: 32)
        publicKey.rawRepresentation.withUnsafeBytes { input in
            digest.withUnsafeMutableBytes { Keccak256.hash(bytes: input, into: $0) }
        }
        bytes = Array(digest[12..<32])
    }

    /// Parses `0x` followed by 40 hex digits.
    ///
    /// With `strict` (the default) a mixed-case string must match its EIP-55 checksum; all-lowercase and
    /// all-uppercase strings carry no checksum and are accepted. Without `strict` any case is accepted.
    /// - Throws: `ECCError` `.invalidAddress` (shape) or `.checksumMismatch`.
    public init(_ string: some StringProtocol, strict: Bool = true) throws(ECCError) {
        let utf8 = Array(string.utf8)
        guard utf8.count == 42, utf8[0] == UInt8(ascii: "0"), utf8[1] == UInt8(ascii: "x") else {
            throw ECCError(.invalidAddress, "Ethereum address: expected 0x followed by 40 hex digits")
        }
        let digits = utf8[2...]
        let decoded: [UInt8]
        do {
            decoded = try Base16.decode(String(decoding: digits, as: UTF8.self))
        } catch {
            throw ECCError(.invalidAddress, "Ethereum address: invalid hex digit at offset \((error.offset ?? 0) + 2)")
        }
        try self.init(bytes: decoded)
        let hasLower = digits.contains { (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
        let hasUpper = digits.contains { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }
        if strict && hasLower && hasUpper && Array(checksummed.utf8) != utf8 {
            throw ECCError(.checksumMismatch, "Ethereum address: mixed-case letters do not match the EIP-55 checksum")
        }
    }

    /// `0x` and the EIP-55 checksummed hex: a letter is uppercase iff the matching nibble of
    /// keccak256(lowercase hex) is >= 8.
    public var checksummed: String {
        String(unsafeUninitializedCapacity: 42) { out in
            out[0] = UInt8(ascii: "0")
            out[1] = UInt8(ascii: "x")
            let hex = UnsafeMutableBufferPointer(rebasing: out[2..<42])
            for (i, byte) in bytes.enumerated() {
                hex[2 * i] = Self.hexDigit(byte >> 4)
                hex[2 * i + 1] = Self.hexDigit(byte & 0x0f)
            }
            var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &digest) { Keccak256.hash(bytes: UnsafeRawBufferPointer(hex), into: $0) }
            withUnsafeBytes(of: &digest) { hash in
                for i in 0..<40 where hex[i] >= UInt8(ascii: "a") {
                    let nibble = i % 2 == 0 ? hash[i / 2] >> 4 : hash[i / 2] & 0x0f
                    if nibble >= 8 { hex[i] -= 0x20 }
                }
            }
            return 42
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// `0x` and lowercase hex.
    public var lowercased: String { Base16.encodePrefixed(bytes) }

    public var description: String { checksummed }
}

extension EthereumAddress: Codable {
    /// Decodes an address string, refusing a mixed-case string with a wrong checksum.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(try container.decode(String.self))
    }

    /// Encodes the EIP-55 checksummed string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(checksummed)
    }
}
