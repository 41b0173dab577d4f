/// Four or eight elements of GF(2^255 - 19) side by side, one in each lane of `SIMD4<UInt64>` (or
/// `SIMD8` when built for AVX-512): the field of ``Ed25519LanePoint``, which derives that many public keys
/// at once.
///
/// Ten limbs in radix 2^25.5 (26, 25, 26, ... bits at bit offsets 0, 26, 51, 77, ...), so that every
/// limb product is a 32x32->64-bit multiplication: one `vpmuludq` multiplies a pair per lane, where
/// ``Ed25519FieldElement``'s 64x64->128-bit products take one `mulx` each. The schoolbook product is
/// that of ref10's `fe_mul` (Bernstein, Duif, Lange, Schwabe, Yang, "High-speed high-security signatures",
/// 2011) on unsigned limbs: column k takes a_i·b_j for i + j = k, and 19·a_i·b_j for i + j = k + 10; a
/// product of two odd limbs counts twice (their offsets sum to one more than the column's).
///
/// Constant time: no branch or memory index depends on a limb; carries are shifts and masks.
///
/// Limb bounds, "tight": even limbs below 2^26, odd limbs below 2^25 + 2^17 (a product's output, or a
/// canonical value). `*` takes a left operand with even limbs below 2^28 and odd below 2^27.1, and a
/// right operand below 2^27.6 and 2^26.6 (19 times a right limb must fit 32 bits): then each of a column's
/// ten terms is below 2^59.9 and their sum below 2^63.2. ``Ed25519LanePoint`` stays within them (its
/// comments say how).
struct Ed25519LaneField {
    // Eight lanes fill an AVX-512 register: 24 % less CPU per key than four (`walletops-bench ed25519`).
    // Built for Haswell (AVX2, sixteen registers) eight lanes took 1.4-1.75x the time of four: the
    // Makefile defines ED25519_EIGHT_LANES only when it builds for AVX-512 (docs/bench.md "Eight lanes").
    #if ED25519_EIGHT_LANES
    typealias Lanes = SIMD8<UInt64>
    /// Signed table digits, one per lane.
    typealias LaneDigits = SIMD8<Int64>
    #else
    typealias Lanes = SIMD4<UInt64>
    /// Signed table digits, one per lane.
    typealias LaneDigits = SIMD4<Int64>
    #endif
    /// Elements side by side.
    static let laneCount = Lanes.scalarCount

    var v0, v1, v2, v3, v4, v5, v6, v7, v8, v9: Lanes

    static let mask26 = Lanes(repeating: (1 << 26) - 1)
    static let mask25 = Lanes(repeating: (1 << 25) - 1)

    static let zero = Ed25519LaneField(repeating: .zero)
    static let one = Ed25519LaneField(repeating: .one)

    /// 2p, limb by limb: what `-` adds so that no limb wraps.
    static let twoP: Ed25519LaneField = {
        let even = Lanes(repeating: 2 * ((1 << 26) - 1))
        let odd = Lanes(repeating: 2 * ((1 << 25) - 1))
        return Ed25519LaneField(
            v0: Lanes(repeating: 2 * ((1 << 26) - 19)), v1: odd, v2: even, v3: odd, v4: even, v5: odd, v6: even,
            v7: odd, v8: even, v9: odd)
    }()

    @inline(__always)
    init(
        v0: Lanes, v1: Lanes, v2: Lanes, v3: Lanes, v4: Lanes, v5: Lanes, v6: Lanes, v7: Lanes, v8: Lanes,
        v9: Lanes
    ) {
        (self.v0, self.v1, self.v2, self.v3, self.v4) = (v0, v1, v2, v3, v4)
        (self.v5, self.v6, self.v7, self.v8, self.v9) = (v5, v6, v7, v8, v9)
    }

    /// The same element in every lane, brought to its canonical value and split into limbs.
    init(repeating element: Ed25519FieldElement) {
        let (w0, w1, w2, w3) = element.canonicalWords
        let limbs = Self.limbs(words: w0, w1, w2, w3)
        self.init(
            v0: Lanes(repeating: limbs[0]), v1: Lanes(repeating: limbs[1]), v2: Lanes(repeating: limbs[2]),
            v3: Lanes(repeating: limbs[3]), v4: Lanes(repeating: limbs[4]), v5: Lanes(repeating: limbs[5]),
            v6: Lanes(repeating: limbs[6]), v7: Lanes(repeating: limbs[7]), v8: Lanes(repeating: limbs[8]),
            v9: Lanes(repeating: limbs[9]))
    }

    /// Bit offset of each limb.
    static let limbOffsets = [0, 26, 51, 77, 102, 128, 153, 179, 204, 230]

    /// The ten limbs of a value below 2^255 held as four little-endian words: the table's form.
    static func limbs(words w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64) -> [UInt64] {
        let words = [w0, w1, w2, w3, 0]
        return limbOffsets.enumerated().map { index, offset in
            let width = index % 2 == 0 ? 26 : 25
            let word = offset / 64
            let shift = offset % 64
            var bits = words[word] >> UInt64(shift)
            if shift + width > 64 { bits |= words[word + 1] << UInt64(64 - shift) }
            return bits & ((1 << UInt64(width)) - 1)
        }
    }

    /// Lane `n` as a five-limb element: limbs 2k and 2k + 1 make 51 bits at offset 51k. Needs tight limbs
    /// (the scalar type takes limbs below 2^54).
    @inline(__always)
    func lane(_ n: Int) -> Ed25519FieldElement {
        Ed25519FieldElement(
            v0[n] &+ (v1[n] &<< 26), v2[n] &+ (v3[n] &<< 26), v4[n] &+ (v5[n] &<< 26), v6[n] &+ (v7[n] &<< 26),
            v8[n] &+ (v9[n] &<< 26))
    }

    // MARK: Arithmetic

    /// Sum without carry.
    @inline(__always)
    static func + (a: Self, b: Self) -> Self {
        Self(
            v0: a.v0 &+ b.v0, v1: a.v1 &+ b.v1, v2: a.v2 &+ b.v2, v3: a.v3 &+ b.v3, v4: a.v4 &+ b.v4,
            v5: a.v5 &+ b.v5, v6: a.v6 &+ b.v6, v7: a.v7 &+ b.v7, v8: a.v8 &+ b.v8, v9: a.v9 &+ b.v9)
    }

    /// `a + 2p - b`: never wraps while `b` is tight.
    @inline(__always)
    static func - (a: Self, b: Self) -> Self {
        let p = twoP
        return Self(
            v0: a.v0 &+ p.v0 &- b.v0, v1: a.v1 &+ p.v1 &- b.v1, v2: a.v2 &+ p.v2 &- b.v2, v3: a.v3 &+ p.v3 &- b.v3,
            v4: a.v4 &+ p.v4 &- b.v4, v5: a.v5 &+ p.v5 &- b.v5, v6: a.v6 &+ p.v6 &- b.v6, v7: a.v7 &+ p.v7 &- b.v7,
            v8: a.v8 &+ p.v8 &- b.v8, v9: a.v9 &+ p.v9 &- b.v9)
    }

    /// Twice the value, without carry.
    @inline(__always)
    var doubled: Self { self + self }

    /// 19·x by shifts and adds (x may exceed 32 bits here, where `vpmuludq` would not do).
    @inline(__always)
    static func times19(_ x: Lanes) -> Lanes { (x &<< 4) &+ (x &<< 1) &+ x }

    /// Product mod p, tight. Operand bounds: see the type's comment.
    ///
    /// The `& m32` masks change no value (every operand limb is below 2^32 within the bounds); they tell
    /// the compiler so, and each product becomes one 32x32->64-bit `vpmuludq`.
    @inline(__always)
    static func * (a: Self, b: Self) -> Self {
        let m32 = Lanes(repeating: 0xFFFF_FFFF)
        let g0 = b.v0 & m32
        let g1 = b.v1 & m32
        let g2 = b.v2 & m32
        let g3 = b.v3 & m32
        let g4 = b.v4 & m32
        let g5 = b.v5 & m32
        let g6 = b.v6 & m32
        let g7 = b.v7 & m32
        let g8 = b.v8 & m32
        let g9 = b.v9 & m32
        let g1x19 = times19(b.v1) & m32
        let g2x19 = times19(b.v2) & m32
        let g3x19 = times19(b.v3) & m32
        let g4x19 = times19(b.v4) & m32
        let g5x19 = times19(b.v5) & m32
        let g6x19 = times19(b.v6) & m32
        let g7x19 = times19(b.v7) & m32
        let g8x19 = times19(b.v8) & m32
        let g9x19 = times19(b.v9) & m32
        let f0 = a.v0 & m32
        var h0 = f0 &* g0
        var h1 = f0 &* g1
        var h2 = f0 &* g2
        var h3 = f0 &* g3
        var h4 = f0 &* g4
        var h5 = f0 &* g5
        var h6 = f0 &* g6
        var h7 = f0 &* g7
        var h8 = f0 &* g8
        var h9 = f0 &* g9
        let f1 = a.v1 & m32
        let f1x2 = (a.v1 &<< 1) & m32
        h1 &+= f1 &* g0
        h2 &+= f1x2 &* g1
        h3 &+= f1 &* g2
        h4 &+= f1x2 &* g3
        h5 &+= f1 &* g4
        h6 &+= f1x2 &* g5
        h7 &+= f1 &* g6
        h8 &+= f1x2 &* g7
        h9 &+= f1 &* g8
        h0 &+= f1x2 &* g9x19
        let f2 = a.v2 & m32
        h2 &+= f2 &* g0
        h3 &+= f2 &* g1
        h4 &+= f2 &* g2
        h5 &+= f2 &* g3
        h6 &+= f2 &* g4
        h7 &+= f2 &* g5
        h8 &+= f2 &* g6
        h9 &+= f2 &* g7
        h0 &+= f2 &* g8x19
        h1 &+= f2 &* g9x19
        let f3 = a.v3 & m32
        let f3x2 = (a.v3 &<< 1) & m32
        h3 &+= f3 &* g0
        h4 &+= f3x2 &* g1
        h5 &+= f3 &* g2
        h6 &+= f3x2 &* g3
        h7 &+= f3 &* g4
        h8 &+= f3x2 &* g5
        h9 &+= f3 &* g6
        h0 &+= f3x2 &* g7x19
        h1 &+= f3 &* g8x19
        h2 &+= f3x2 &* g9x19
        let f4 = a.v4 & m32
        h4 &+= f4 &* g0
        h5 &+= f4 &* g1
        h6 &+= f4 &* g2
        h7 &+= f4 &* g3
        h8 &+= f4 &* g4
        h9 &+= f4 &* g5
        h0 &+= f4 &* g6x19
        h1 &+= f4 &* g7x19
        h2 &+= f4 &* g8x19
        h3 &+= f4 &* g9x19
        let f5 = a.v5 & m32
        let f5x2 = (a.v5 &<< 1) & m32
        h5 &+= f5 &* g0
        h6 &+= f5x2 &* g1
        h7 &+= f5 &* g2
        h8 &+= f5x2 &* g3
        h9 &+= f5 &* g4
        h0 &+= f5x2 &* g5x19
        h1 &+= f5 &* g6x19
        h2 &+= f5x2 &* g7x19
        h3 &+= f5 &* g8x19
        h4 &+= f5x2 &* g9x19
        let f6 = a.v6 & m32
        h6 &+= f6 &* g0
        h7 &+= f6 &* g1
        h8 &+= f6 &* g2
        h9 &+= f6 &* g3
        h0 &+= f6 &* g4x19
        h1 &+= f6 &* g5x19
        h2 &+= f6 &* g6x19
        h3 &+= f6 &* g7x19
        h4 &+= f6 &* g8x19
        h5 &+= f6 &* g9x19
        let f7 = a.v7 & m32
        let f7x2 = (a.v7 &<< 1) & m32
        h7 &+= f7 &* g0
        h8 &+= f7x2 &* g1
        h9 &+= f7 &* g2
        h0 &+= f7x2 &* g3x19
        h1 &+= f7 &* g4x19
        h2 &+= f7x2 &* g5x19
        h3 &+= f7 &* g6x19
        h4 &+= f7x2 &* g7x19
        h5 &+= f7 &* g8x19
        h6 &+= f7x2 &* g9x19
        let f8 = a.v8 & m32
        h8 &+= f8 &* g0
        h9 &+= f8 &* g1
        h0 &+= f8 &* g2x19
        h1 &+= f8 &* g3x19
        h2 &+= f8 &* g4x19
        h3 &+= f8 &* g5x19
        h4 &+= f8 &* g6x19
        h5 &+= f8 &* g7x19
        h6 &+= f8 &* g8x19
        h7 &+= f8 &* g9x19
        let f9 = a.v9 & m32
        let f9x2 = (a.v9 &<< 1) & m32
        h9 &+= f9 &* g0
        h0 &+= f9x2 &* g1x19
        h1 &+= f9 &* g2x19
        h2 &+= f9x2 &* g3x19
        h3 &+= f9 &* g4x19
        h4 &+= f9x2 &* g5x19
        h5 &+= f9 &* g6x19
        h6 &+= f9x2 &* g7x19
        h7 &+= f9 &* g8x19
        h8 &+= f9x2 &* g9x19

        return carried(h0, h1, h2, h3, h4, h5, h6, h7, h8, h9)
    }

    /// Ten column sums (each below 2^63.2) carried into tight limbs: two interleaved chains (0 to 5 and 4
    /// to 9) for instruction-level parallelism, the carry out of limb 9 folded into limb 0 times 19
    /// (2^255 = 19 mod p), and limb 0 carried once more.
    @inline(__always)
    static func carried(
        _ h0: Lanes, _ h1: Lanes, _ h2: Lanes, _ h3: Lanes, _ h4: Lanes, _ h5: Lanes, _ h6: Lanes, _ h7: Lanes,
        _ h8: Lanes, _ h9: Lanes
    ) -> Self {
        var (h0, h1, h2, h3, h4, h5, h6, h7, h8, h9) = (h0, h1, h2, h3, h4, h5, h6, h7, h8, h9)
        h1 &+= h0 &>> 26
        h0 &= mask26
        h5 &+= h4 &>> 26
        h4 &= mask26
        h2 &+= h1 &>> 25
        h1 &= mask25
        h6 &+= h5 &>> 25
        h5 &= mask25
        h3 &+= h2 &>> 26
        h2 &= mask26
        h7 &+= h6 &>> 26
        h6 &= mask26
        h4 &+= h3 &>> 25
        h3 &= mask25
        h8 &+= h7 &>> 25
        h7 &= mask25
        h5 &+= h4 &>> 26
        h4 &= mask26
        h9 &+= h8 &>> 26
        h8 &= mask26
        h0 &+= times19(h9 &>> 25)
        h9 &= mask25
        h1 &+= h0 &>> 26
        h0 &= mask26
        return Self(v0: h0, v1: h1, v2: h2, v3: h3, v4: h4, v5: h5, v6: h6, v7: h7, v8: h8, v9: h9)
    }

    // MARK: Constant-time selection

    /// `b` in the lanes where `mask` is all ones, `a` where it is zero; no branch.
    @inline(__always)
    static func select(_ a: Self, _ b: Self, mask: Lanes) -> Self {
        @inline(__always) func pick(_ x: Lanes, _ y: Lanes) -> Lanes { x ^ ((x ^ y) & mask) }
        return Self(
            v0: pick(a.v0, b.v0), v1: pick(a.v1, b.v1), v2: pick(a.v2, b.v2), v3: pick(a.v3, b.v3),
            v4: pick(a.v4, b.v4), v5: pick(a.v5, b.v5), v6: pick(a.v6, b.v6), v7: pick(a.v7, b.v7),
            v8: pick(a.v8, b.v8), v9: pick(a.v9, b.v9))
    }
}
