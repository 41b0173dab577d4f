public import Foundation

/// Keccak-256, the hash Ethereum uses (original Keccak padding `0x01`, not FIPS 202 SHA3-256).
///
/// Pure Swift: the Keccak-f[1600] permutation runs on 25 local lanes, the sponge state lives in a
/// fixed-size tuple, so hashing allocates nothing but the 32-byte result.
/// See <https://keccak.team/keccak_specs_summary.html> and the Ethereum Yellow Paper, appendix on hashing.
public enum Keccak256 {
    /// The digest length in bytes.
    public static let digestByteCount = 32
    /// The sponge rate in bytes (1600 - 2 * 256 bits).
    public static let blockByteCount = 136

    /// The Keccak-256 digest of `data`.
    @inlinable
    public static func hash(_ data: some ContiguousBytes) -> [UInt8] {
        var hasher = Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    /// The Keccak-256 digest of the UTF-8 bytes of `string`.
    public static func hash(_ string: String) -> [UInt8] {
        var hasher = Hasher()
        var copy = string
        copy.withUTF8 { hasher.update(bytes: UnsafeRawBufferPointer($0)) }
        return hasher.finalize()
    }

    /// Writes the Keccak-256 digest of `bytes` into the first 32 bytes of `output`, with no allocation.
    ///
    /// - Precondition: `output.count >= 32`.
    public static func hash(bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        var hasher = Hasher()
        hasher.update(bytes: bytes)
        hasher.finalize(into: output)
    }
}

extension Keccak256 {
    /// An incremental Keccak-256 hasher for input that arrives in pieces.
    ///
    /// A value type: copying a hasher forks the computation.
    public struct Hasher: Sendable {
        @usableFromInline typealias Lanes = (
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64
        )

        @usableFromInline var lanes: Lanes = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        /// Bytes absorbed into the current block (0..<136).
        @usableFromInline var position = 0

        /// A hasher with an empty state.
        @inlinable public init() {}

        /// Absorbs `data`.
        @inlinable
        public mutating func update(_ data: some ContiguousBytes) {
            data.withUnsafeBytes { update(bytes: $0) }
        }

        /// Absorbs the bytes in `bytes`.
        public mutating func update(bytes: UnsafeRawBufferPointer) {
            guard var base = bytes.baseAddress, bytes.count > 0 else { return }
            var remaining = bytes.count
            var position = self.position
            withUnsafeMutableBytes(of: &lanes) { raw in
                let state = raw.baseAddress!.assumingMemoryBound(to: UInt64.self)
                // Finish a partial block byte by byte.
                if position != 0 {
                    while remaining > 0 && position < Keccak256.blockByteCount {
                        state[position >> 3] ^= UInt64(base.load(as: UInt8.self)) << UInt64((position & 7) << 3)
                        base += 1
                        remaining -= 1
                        position += 1
                    }
                    if position == Keccak256.blockByteCount {
                        Keccak256.permute(state)
                        position = 0
                    }
                }
                // Whole blocks, a lane at a time.
                while remaining >= Keccak256.blockByteCount {
                    for i in 0..<17 {
                        state[i] ^= UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i << 3, as: UInt64.self))
                    }
                    Keccak256.permute(state)
                    base += Keccak256.blockByteCount
                    remaining -= Keccak256.blockByteCount
                }
                // The tail starts a new block: whole lanes, then single bytes.
                while remaining >= 8 {
                    state[position >> 3] ^= UInt64(littleEndian: base.loadUnaligned(as: UInt64.self))
                    base += 8
                    remaining -= 8
                    position += 8
                }
                while remaining > 0 {
                    state[position >> 3] ^= UInt64(base.load(as: UInt8.self)) << UInt64((position & 7) << 3)
                    base += 1
                    remaining -= 1
                    position += 1
                }
            }
            self.position = position
        }

        /// Pads, squeezes and writes the 32-byte digest into the start of `output`.
        ///
        /// - Precondition: `output.count >= 32`.
        public mutating func finalize(into output: UnsafeMutableRawBufferPointer) {
            precondition(output.count >= Keccak256.digestByteCount, "Keccak256 output buffer shorter than 32 bytes")
            let position = self.position
            withUnsafeMutableBytes(of: &lanes) { raw in
                let state = raw.baseAddress!.assumingMemoryBound(to: UInt64.self)
                // Keccak multi-rate padding: 0x01 after the message, 0x80 on the last byte of the block.
                state[position >> 3] ^= UInt64(0x01) << UInt64((position & 7) << 3)
                state[16] ^= UInt64(0x80) << 56
                Keccak256.permute(state)
                for i in 0..<4 {
                    output.storeBytes(of: state[i].littleEndian, toByteOffset: i << 3, as: UInt64.self)
                }
            }
            self = Hasher()
        }

        /// Pads, squeezes and returns the 32-byte digest; the hasher is reset afterwards.
        public mutating func finalize() -> [UInt8] {
            [UInt8](unsafeUninitializedCapacity: Keccak256.digestByteCount) { buffer, count in
                finalize(into: UnsafeMutableRawBufferPointer(buffer))
                count = Keccak256.digestByteCount
            }
        }
    }
}

extension Keccak256 {
    @inline(__always)
    static func rotl(_ x: UInt64, _ n: UInt64) -> UInt64 {
        (x << n) | (x >> (64 &- n))
    }

    /// Keccak-f[1600] on 25 lanes, unrolled within a round so the lanes stay in registers.
    static func permute(_ s: UnsafeMutablePointer<UInt64>) {
        var a0 = s[0]
        var a1 = s[1]
        var a2 = s[2]
        var a3 = s[3]
        var a4 = s[4]
        var a5 = s[5]
        var a6 = s[6]
        var a7 = s[7]
        var a8 = s[8]
        var a9 = s[9]
        var a10 = s[10]
        var a11 = s[11]
        var a12 = s[12]
        var a13 = s[13]
        var a14 = s[14]
        var a15 = s[15]
        var a16 = s[16]
        var a17 = s[17]
        var a18 = s[18]
        var a19 = s[19]
        var a20 = s[20]
        var a21 = s[21]
        var a22 = s[22]
        var a23 = s[23]
        var a24 = s[24]
        for round in 0..<24 {
            // theta
            let c0 = a0 ^ a5 ^ a10 ^ a15 ^ a20
            let c1 = a1 ^ a6 ^ a11 ^ a16 ^ a21
            let c2 = a2 ^ a7 ^ a12 ^ a17 ^ a22
            let c3 = a3 ^ a8 ^ a13 ^ a18 ^ a23
            let c4 = a4 ^ a9 ^ a14 ^ a19 ^ a24
            let d0 = c4 ^ rotl(c1, 1)
            let d1 = c0 ^ rotl(c2, 1)
            let d2 = c1 ^ rotl(c3, 1)
            let d3 = c2 ^ rotl(c4, 1)
            let d4 = c3 ^ rotl(c0, 1)
            // rho and pi
            let b0 = (a0 ^ d0)
            let b1 = rotl(a6 ^ d1, 44)
            let b2 = rotl(a12 ^ d2, 43)
            let b3 = rotl(a18 ^ d3, 21)
            let b4 = rotl(a24 ^ d4, 14)
            let b5 = rotl(a3 ^ d3, 28)
            let b6 = rotl(a9 ^ d4, 20)
            let b7 = rotl(a10 ^ d0, 3)
            let b8 = rotl(a16 ^ d1, 45)
            let b9 = rotl(a22 ^ d2, 61)
            let b10 = rotl(a1 ^ d1, 1)
            let b11 = rotl(a7 ^ d2, 6)
            let b12 = rotl(a13 ^ d3, 25)
            let b13 = rotl(a19 ^ d4, 8)
            let b14 = rotl(a20 ^ d0, 18)
            let b15 = rotl(a4 ^ d4, 27)
            let b16 = rotl(a5 ^ d0, 36)
            let b17 = rotl(a11 ^ d1, 10)
            let b18 = rotl(a17 ^ d2, 15)
            let b19 = rotl(a23 ^ d3, 56)
            let b20 = rotl(a2 ^ d2, 62)
            let b21 = rotl(a8 ^ d3, 55)
            let b22 = rotl(a14 ^ d4, 39)
            let b23 = rotl(a15 ^ d0, 41)
            let b24 = rotl(a21 ^ d1, 2)
            // chi
            a0 = b0 ^ (~b1 & b2)
            a1 = b1 ^ (~b2 & b3)
            a2 = b2 ^ (~b3 & b4)
            a3 = b3 ^ (~b4 & b0)
            a4 = b4 ^ (~b0 & b1)
            a5 = b5 ^ (~b6 & b7)
            a6 = b6 ^ (~b7 & b8)
            a7 = b7 ^ (~b8 & b9)
            a8 = b8 ^ (~b9 & b5)
            a9 = b9 ^ (~b5 & b6)
            a10 = b10 ^ (~b11 & b12)
            a11 = b11 ^ (~b12 & b13)
            a12 = b12 ^ (~b13 & b14)
            a13 = b13 ^ (~b14 & b10)
            a14 = b14 ^ (~b10 & b11)
            a15 = b15 ^ (~b16 & b17)
            a16 = b16 ^ (~b17 & b18)
            a17 = b17 ^ (~b18 & b19)
            a18 = b18 ^ (~b19 & b15)
            a19 = b19 ^ (~b15 & b16)
            a20 = b20 ^ (~b21 & b22)
            a21 = b21 ^ (~b22 & b23)
            a22 = b22 ^ (~b23 & b24)
            a23 = b23 ^ (~b24 & b20)
            a24 = b24 ^ (~b20 & b21)
            a0 ^= roundConstant(round)
        }
        s[0] = a0
        s[1] = a1
        s[2] = a2
        s[3] = a3
        s[4] = a4
        s[5] = a5
        s[6] = a6
        s[7] = a7
        s[8] = a8
        s[9] = a9
        s[10] = a10
        s[11] = a11
        s[12] = a12
        s[13] = a13
        s[14] = a14
        s[15] = a15
        s[16] = a16
        s[17] = a17
        s[18] = a18
        s[19] = a19
        s[20] = a20
        s[21] = a21
        s[22] = a22
        s[23] = a23
        s[24] = a24
    }

    @inline(__always)
    static func roundConstant(_ round: Int) -> UInt64 {
        withUnsafeBytes(of: roundConstants) { $0.load(fromByteOffset: round << 3, as: UInt64.self) }
    }
}

/// The iota step constants; a tuple so reading one needs no array bounds check or lazy initialisation.
private let roundConstants:
    (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    ) = (
        0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
        0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
        0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
        0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
        0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
        0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008
    )
