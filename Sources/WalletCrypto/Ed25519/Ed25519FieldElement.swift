/// An element of GF(p), p = 2^255 - 19, the field of Curve25519 and Ed25519 (RFC 8032 section 5.1).
///
/// Five unsigned limbs in radix 2^51: the value is `l0 + l1·2^51 + l2·2^102 + l3·2^153 + l4·2^204`,
/// not necessarily reduced below p. Products are 64x64->128-bit multiplications (`UInt128`, one `mul`
/// each on x86-64), reduced with 2^255 = 19 (mod p).
///
/// Constant time: every operation runs the same instructions whatever the values are: no branch and no
/// memory index depends on a limb; carries are shifts and masks; selection is by all-ones/all-zero masks.
///
/// Limb bounds (why no carry is needed after `+` and `-`): products and squares return limbs below
/// 2^51 + 2^13, and accept limbs below 2^54 (see `*`). `+` of two such outputs stays below 2^52.1;
/// `-` adds 2p (limbs 2^52 - 38, 2^52 - 2) before subtracting so it never wraps when the subtrahend is a
/// product output, and stays below 2^53.1.
struct Ed25519FieldElement {
    var l0: UInt64
    var l1: UInt64
    var l2: UInt64
    var l3: UInt64
    var l4: UInt64

    static let mask51: UInt64 = (1 << 51) - 1

    @inline(__always)
    init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64, _ l4: UInt64) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
    }

    static let zero = Ed25519FieldElement(0, 0, 0, 0, 0)
    static let one = Ed25519FieldElement(1, 0, 0, 0, 0)

    /// A small integer.
    init(_ value: UInt32) { self.init(UInt64(value), 0, 0, 0, 0) }

    /// The little-endian 32 bytes at `bytes` with bit 255 ignored (RFC 8032 section 5.1.3 reads y so).
    init(littleEndian bytes: UnsafeRawPointer) {
        let w0 = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        let w1 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let w2 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        let w3 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        let m = Self.mask51
        self.init(
            w0 & m, (w0 >> 51 | w1 << 13) & m, (w1 >> 38 | w2 << 26) & m, (w2 >> 25 | w3 << 39) & m, (w3 >> 12) & m)
    }

    /// The limbs of a value below 2^256 held as four little-endian words (bit 255 dropped).
    @inline(__always)
    init(words w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64) {
        let m = Self.mask51
        self.init(
            w0 & m, (w0 >> 51 | w1 << 13) & m, (w1 >> 38 | w2 << 26) & m, (w2 >> 25 | w3 << 39) & m, (w3 >> 12) & m)
    }

    // MARK: Arithmetic

    /// Sum without carry: limbs below 2^53 in give limbs below 2^54 out.
    @inline(__always)
    static func + (a: Self, b: Self) -> Self {
        Self(a.l0 &+ b.l0, a.l1 &+ b.l1, a.l2 &+ b.l2, a.l3 &+ b.l3, a.l4 &+ b.l4)
    }

    /// `a + 2p - b`: never wraps while `b`'s limbs are below 2^52 - 38 (any product output).
    @inline(__always)
    static func - (a: Self, b: Self) -> Self {
        Self(
            a.l0 &+ 0xF_FFFF_FFFF_FFDA &- b.l0, a.l1 &+ 0xF_FFFF_FFFF_FFFE &- b.l1, a.l2 &+ 0xF_FFFF_FFFF_FFFE &- b.l2,
            a.l3 &+ 0xF_FFFF_FFFF_FFFE &- b.l3, a.l4 &+ 0xF_FFFF_FFFF_FFFE &- b.l4)
    }

    /// `2p - a`, the negation, for `a` with limbs below 2^52 - 38.
    @inline(__always)
    var negated: Self { Self.zero - self }

    /// Twice the value, without carry.
    @inline(__always)
    var doubled: Self { self + self }

    @inline(__always)
    private static func wide(_ a: UInt64, _ b: UInt64) -> UInt128 { UInt128(a) &* UInt128(b) }

    /// Carries five 128-bit column sums into limbs below 2^51 (l1 below 2^51 + 2^13).
    ///
    /// Each column is below 2^115 and the top column below 2^110.4 (it has no factor 19), so the carry out
    /// of it, times 19, fits in 64 bits.
    @inline(__always)
    private static func reduce(_ t0: UInt128, _ t1: UInt128, _ t2: UInt128, _ t3: UInt128, _ t4: UInt128) -> Self {
        let m = mask51
        var c1 = t1
        var c2 = t2
        var c3 = t3
        var c4 = t4
        var r0 = UInt64(truncatingIfNeeded: t0) & m
        c1 &+= t0 &>> 51
        let r1 = UInt64(truncatingIfNeeded: c1) & m
        c2 &+= c1 &>> 51
        let r2 = UInt64(truncatingIfNeeded: c2) & m
        c3 &+= c2 &>> 51
        let r3 = UInt64(truncatingIfNeeded: c3) & m
        c4 &+= c3 &>> 51
        let r4 = UInt64(truncatingIfNeeded: c4) & m
        r0 &+= UInt64(truncatingIfNeeded: c4 &>> 51) &* 19
        return Self(r0 & m, r1 &+ (r0 &>> 51), r2, r3, r4)
    }

    /// Product mod p. Inputs: limbs below 2^54; output: limbs below 2^51 + 2^13.
    ///
    /// Column k collects a_i·b_j with i + j = k, plus 19·a_i·b_j with i + j = k + 5 (2^255 = 19).
    @inline(__always)
    static func * (a: Self, b: Self) -> Self {
        let b1 = b.l1 &* 19
        let b2 = b.l2 &* 19
        let b3 = b.l3 &* 19
        let b4 = b.l4 &* 19
        let t0 = wide(a.l0, b.l0) &+ wide(a.l1, b4) &+ wide(a.l2, b3) &+ wide(a.l3, b2) &+ wide(a.l4, b1)
        let t1 = wide(a.l0, b.l1) &+ wide(a.l1, b.l0) &+ wide(a.l2, b4) &+ wide(a.l3, b3) &+ wide(a.l4, b2)
        let t2 = wide(a.l0, b.l2) &+ wide(a.l1, b.l1) &+ wide(a.l2, b.l0) &+ wide(a.l3, b4) &+ wide(a.l4, b3)
        let t3 = wide(a.l0, b.l3) &+ wide(a.l1, b.l2) &+ wide(a.l2, b.l1) &+ wide(a.l3, b.l0) &+ wide(a.l4, b4)
        let t4 = wide(a.l0, b.l4) &+ wide(a.l1, b.l3) &+ wide(a.l2, b.l2) &+ wide(a.l3, b.l1) &+ wide(a.l4, b.l0)
        return reduce(t0, t1, t2, t3, t4)
    }

    /// The square mod p with 15 products instead of 25 (the cross terms a_i·a_j appear twice).
    @inline(__always)
    var squared: Self {
        let a0x2 = l0 &* 2
        let a1x2 = l1 &* 2
        let a2x2 = l2 &* 2
        let a3x2 = l3 &* 2
        let a3x19 = l3 &* 19
        let a4x19 = l4 &* 19
        let t0 = Self.wide(l0, l0) &+ Self.wide(a1x2, a4x19) &+ Self.wide(a2x2, a3x19)
        let t1 = Self.wide(a0x2, l1) &+ Self.wide(a2x2, a4x19) &+ Self.wide(l3, a3x19)
        let t2 = Self.wide(a0x2, l2) &+ Self.wide(l1, l1) &+ Self.wide(a3x2, a4x19)
        let t3 = Self.wide(a0x2, l3) &+ Self.wide(a1x2, l2) &+ Self.wide(l4, a4x19)
        let t4 = Self.wide(a0x2, l4) &+ Self.wide(a1x2, l3) &+ Self.wide(l2, l2)
        return Self.reduce(t0, t1, t2, t3, t4)
    }

    /// The value squared `n` times (a^(2^n)), for the exponentiation chains.
    func squared(times n: Int) -> Self {
        var x = self
        for _ in 0..<n { x = x.squared }
        return x
    }

    /// a^(2^250 - 1) and a^11, the common prefix of the chains for p - 2 and (p - 5) / 8.
    ///
    /// Built from the exponent's binary shape: 2^5 - 1 from 11 and 9 (2·11 + 9 = 31), then runs of ones
    /// doubled in length (2^10 - 1, 2^20 - 1, ...) by shifting a run left and multiplying in another.
    private func powerChainPrefix() -> (run250: Self, eleven: Self) {
        let a2 = squared
        let a9 = a2.squared(times: 2) * self
        let a11 = a9 * a2
        let run5 = a11.squared * a9  // 2^5 - 1
        let run10 = run5.squared(times: 5) * run5
        let run20 = run10.squared(times: 10) * run10
        let run40 = run20.squared(times: 20) * run20
        let run50 = run40.squared(times: 10) * run10
        let run100 = run50.squared(times: 50) * run50
        let run200 = run100.squared(times: 100) * run100
        let run250 = run200.squared(times: 50) * run50
        return (run250, a11)
    }

    /// The inverse a^(p - 2) = a^(2^255 - 21) (Fermat); zero maps to zero. 254 squarings, 11 products.
    var inverted: Self {
        let (run250, a11) = powerChainPrefix()
        return run250.squared(times: 5) * a11  // 2^255 - 32 + 11
    }

    /// a^((p - 5) / 8) = a^(2^252 - 3), the exponent of the square root in RFC 8032 section 5.1.3.
    var powerPMinus5Over8: Self {
        let (run250, _) = powerChainPrefix()
        return run250.squared(times: 2) * self  // 2^252 - 4 + 1
    }

    // MARK: Encoding

    /// The canonical value (below p) as four little-endian words.
    ///
    /// Two carry passes bring every limb below 2^51 (value below 2^255 + 2^13); then q = 1 exactly when the
    /// value is at least p (the carry out of value + 19), and value + 19q with bit 255 dropped is value - pq.
    var canonicalWords: (UInt64, UInt64, UInt64, UInt64) {
        let m = Self.mask51
        var (h0, h1, h2, h3, h4) = (l0, l1, l2, l3, l4)
        // Carries limbs 0-3 into the next one; the carry out of limb 4 is left to the caller.
        func carryUp() {
            h1 &+= h0 >> 51
            h0 &= m
            h2 &+= h1 >> 51
            h1 &= m
            h3 &+= h2 >> 51
            h2 &= m
            h4 &+= h3 >> 51
            h3 &= m
        }
        for _ in 0..<2 {
            carryUp()
            h0 &+= (h4 >> 51) &* 19
            h4 &= m
        }
        var q = (h0 &+ 19) >> 51
        q = (h1 &+ q) >> 51
        q = (h2 &+ q) >> 51
        q = (h3 &+ q) >> 51
        q = (h4 &+ q) >> 51
        h0 &+= 19 &* q
        carryUp()
        h4 &= m  // bit 255 dropped
        return (h0 | h1 << 51, h1 >> 13 | h2 << 38, h2 >> 26 | h3 << 25, h3 >> 39 | h4 << 12)
    }

    /// The canonical little-endian 32 bytes, written at `out`.
    func encode(into out: UnsafeMutableRawPointer) {
        let (w0, w1, w2, w3) = canonicalWords
        out.storeBytes(of: w0.littleEndian, as: UInt64.self)
        out.storeBytes(of: w1.littleEndian, toByteOffset: 8, as: UInt64.self)
        out.storeBytes(of: w2.littleEndian, toByteOffset: 16, as: UInt64.self)
        out.storeBytes(of: w3.littleEndian, toByteOffset: 24, as: UInt64.self)
    }

    /// The canonical little-endian 32 bytes.
    var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
            encode(into: buffer.baseAddress!)
            count = 32
        }
    }

    /// Whether the canonical value is odd: RFC 8032 calls odd x "negative" and stores it in bit 255.
    var isOdd: Bool { canonicalWords.0 & 1 == 1 }

    /// Whether two elements are equal mod p (variable time: used only on public values).
    func isEqual(to other: Self) -> Bool { canonicalWords == other.canonicalWords }

    // MARK: Constant-time selection

    /// `b` where `mask` is all ones, `a` where it is zero; no branch.
    @inline(__always)
    static func select(_ a: Self, _ b: Self, mask: UInt64) -> Self {
        Self(
            a.l0 ^ ((a.l0 ^ b.l0) & mask), a.l1 ^ ((a.l1 ^ b.l1) & mask), a.l2 ^ ((a.l2 ^ b.l2) & mask),
            a.l3 ^ ((a.l3 ^ b.l3) & mask), a.l4 ^ ((a.l4 ^ b.l4) & mask))
    }
}
