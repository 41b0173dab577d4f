/// An unsigned token amount in base units (wei, lamports), from 0 to 2^256 - 1.
///
/// Four 64-bit limbs, no allocation; arithmetic is checked and never wraps. It reads and writes
/// canonical decimal strings (JSON carries it as a string, since JSON numbers lose precision past 2^53).
/// See the Ethereum Yellow Paper's 256-bit word and the JSON-RPC "quantity" convention.
public struct TokenAmount: Sendable, Hashable {
    /// Limbs, least significant first.
    @usableFromInline var w0, w1, w2, w3: UInt64

    @inlinable init(limbs w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64) {
        (self.w0, self.w1, self.w2, self.w3) = (w0, w1, w2, w3)
    }

    /// Zero.
    public static let zero = TokenAmount(limbs: 0, 0, 0, 0)
    /// 2^256 - 1, the largest amount.
    public static let max = TokenAmount(limbs: .max, .max, .max, .max)

    /// The amount `value`.
    @inlinable public init(_ value: UInt64) { self.init(limbs: value, 0, 0, 0) }

    /// Whether the amount is zero.
    public var isZero: Bool { (w0 | w1 | w2 | w3) == 0 }

    /// `self + other`, or nil if the sum exceeds 2^256 - 1.
    @inlinable
    public func adding(_ other: TokenAmount) -> TokenAmount? {
        let (r0, c0) = w0.addingReportingOverflow(other.w0)
        let (s1, c1a) = w1.addingReportingOverflow(other.w1)
        let (r1, c1b) = s1.addingReportingOverflow(c0 ? 1 : 0)
        let (s2, c2a) = w2.addingReportingOverflow(other.w2)
        let (r2, c2b) = s2.addingReportingOverflow((c1a || c1b) ? 1 : 0)
        let (s3, c3a) = w3.addingReportingOverflow(other.w3)
        let (r3, c3b) = s3.addingReportingOverflow((c2a || c2b) ? 1 : 0)
        if c3a || c3b { return nil }
        return TokenAmount(limbs: r0, r1, r2, r3)
    }

    /// `self - other`, or nil if `other` is larger (amounts are never negative).
    @inlinable
    public func subtracting(_ other: TokenAmount) -> TokenAmount? {
        let (r0, b0) = w0.subtractingReportingOverflow(other.w0)
        let (s1, b1a) = w1.subtractingReportingOverflow(other.w1)
        let (r1, b1b) = s1.subtractingReportingOverflow(b0 ? 1 : 0)
        let (s2, b2a) = w2.subtractingReportingOverflow(other.w2)
        let (r2, b2b) = s2.subtractingReportingOverflow((b1a || b1b) ? 1 : 0)
        let (s3, b3a) = w3.subtractingReportingOverflow(other.w3)
        let (r3, b3b) = s3.subtractingReportingOverflow((b2a || b2b) ? 1 : 0)
        if b3a || b3b { return nil }
        return TokenAmount(limbs: r0, r1, r2, r3)
    }

    /// `self * factor + addend`, or nil on overflow (used for parsing and unit scaling).
    public func multiplied(by factor: UInt64, adding addend: UInt64 = 0) -> TokenAmount? {
        var carry = addend
        var out: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        func step(_ limb: UInt64) -> UInt64 {
            let (high, low) = limb.multipliedFullWidth(by: factor)
            let (sum, overflow) = low.addingReportingOverflow(carry)
            carry = high &+ (overflow ? 1 : 0)  // high <= 2^64 - 2, so this cannot wrap
            return sum
        }
        out.0 = step(w0)
        out.1 = step(w1)
        out.2 = step(w2)
        out.3 = step(w3)
        guard carry == 0 else { return nil }
        return TokenAmount(limbs: out.0, out.1, out.2, out.3)
    }

    /// (`self / divisor`, remainder); `divisor` must not be zero.
    public func quotientAndRemainder(dividingBy divisor: UInt64) -> (quotient: TokenAmount, remainder: UInt64) {
        precondition(divisor != 0, "TokenAmount division by zero")
        var remainder: UInt64 = 0
        func step(_ limb: UInt64) -> UInt64 {
            let (q, r) = divisor.dividingFullWidth((remainder, limb))
            remainder = r
            return q
        }
        let q3 = step(w3)
        let q2 = step(w2)
        let q1 = step(w1)
        let q0 = step(w0)
        return (TokenAmount(limbs: q0, q1, q2, q3), remainder)
    }

    /// The amount as 32 big-endian bytes (an EVM word).
    public var bigEndianBytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for (i, limb) in [w3, w2, w1, w0].enumerated() {
            for k in 0..<8 { out[i * 8 + k] = UInt8(truncatingIfNeeded: limb >> UInt64(56 - 8 * k)) }
        }
        return out
    }

    /// An amount from up to 32 big-endian bytes, or nil if there are more than 32.
    public init?(bigEndianBytes bytes: some Collection<UInt8>) {
        guard bytes.count <= 32 else { return nil }
        var limbs: [UInt64] = [0, 0, 0, 0]
        for (i, byte) in bytes.reversed().enumerated() { limbs[i / 8] |= UInt64(byte) << UInt64(8 * (i % 8)) }
        self.init(limbs: limbs[0], limbs[1], limbs[2], limbs[3])
    }
}

extension TokenAmount: Comparable {
    @inlinable
    public static func < (lhs: TokenAmount, rhs: TokenAmount) -> Bool {
        (lhs.w3, lhs.w2, lhs.w1, lhs.w0) < (rhs.w3, rhs.w2, rhs.w1, rhs.w0)
    }
}
