/// A point of edwards25519, -x^2 + y^2 = 1 + d·x^2·y^2 over GF(2^255 - 19) (RFC 8032 section 5.1), in
/// extended coordinates (X : Y : Z : T) with x = X/Z, y = Y/Z, x·y = T/Z.
///
/// The formulas are those of Hisil, Wong, Carter and Dawson, "Twisted Edwards Curves Revisited"
/// (ASIACRYPT 2008), for a = -1: addition is complete on this curve (d is not a square), so the same
/// instructions run for every pair of points, doubling and the identity included. No branch anywhere.
struct Ed25519Point {
    typealias Field = Ed25519FieldElement

    var x: Field
    var y: Field
    var z: Field
    var t: Field

    static let identity = Ed25519Point(x: .zero, y: .one, z: .one, t: .zero)

    /// An affine point (x, y) kept as (y + x, y - x, 2d·x·y): the operands the mixed addition needs, so a
    /// table entry costs no multiplication to unpack (the "precomputed" form of HWCD section 3.1).
    struct Precomputed {
        var yPlusX: Field
        var yMinusX: Field
        var xy2d: Field

        /// The identity (0, 1).
        static let identity = Precomputed(yPlusX: .one, yMinusX: .one, xy2d: .zero)

        /// From affine coordinates.
        init(x: Field, y: Field) {
            yPlusX = y + x
            yMinusX = y - x
            xy2d = x * y * Ed25519Point.d2
        }

        init(yPlusX: Field, yMinusX: Field, xy2d: Field) {
            self.yPlusX = yPlusX
            self.yMinusX = yMinusX
            self.xy2d = xy2d
        }

        /// The point or its negation (-x, y), chosen by `mask` (all ones: negate) without a branch:
        /// negation swaps y + x with y - x and negates 2d·x·y.
        @inline(__always)
        func negated(mask: UInt64) -> Precomputed {
            Precomputed(
                yPlusX: .select(yPlusX, yMinusX, mask: mask), yMinusX: .select(yMinusX, yPlusX, mask: mask),
                xy2d: .select(xy2d, xy2d.negated, mask: mask))
        }
    }

    // MARK: Curve constants, computed from their definitions at first use

    /// d = -121665 / 121666 (RFC 8032 section 5.1).
    static let d: Field = (Field(121_665) * Field(121_666).inverted).negated * .one

    /// 2·d, the constant of the addition formulas.
    static let d2: Field = d.doubled * .one

    /// sqrt(-1) = 2^((p - 1) / 4), with (p - 1) / 4 = 2·((p - 5) / 8) + 1.
    static let sqrtMinusOne: Field = Field(2).powerPMinus5Over8.squared * Field(2)

    /// The base point B: y = 4/5 and the even x (RFC 8032 section 5.1).
    static let base: Ed25519Point = {
        let y = Field(4) * Field(5).inverted
        guard let x = recoverX(y: y, odd: false) else { fatalError("edwards25519: 4/5 is not a y coordinate") }
        return Ed25519Point(x: x, y: y, z: .one, t: x * y)
    }()

    /// The x with the given parity on the curve at `y`, or nil: RFC 8032 section 5.1.3 steps 2-4.
    /// Variable time: used only on public values (the base point).
    static func recoverX(y: Field, odd: Bool) -> Field? {
        let yy = y.squared
        let u = (yy - .one) * .one  // reduced, so that it can be negated
        let v = d * yy + .one
        let v3 = v.squared * v
        var x = u * v3 * (u * v3 * v3 * v).powerPMinus5Over8
        let vxx = v * x.squared
        if vxx.isEqual(to: u.negated) {
            x = x * sqrtMinusOne
        } else if !vxx.isEqual(to: u) {
            return nil
        }
        if x.isEqual(to: .zero) && odd { return nil }
        return x.isOdd == odd ? x : x.negated * .one
    }

    // MARK: Group law

    /// self + q for an affine q in precomputed form: 7 products (HWCD "mixed" addition, Z2 = 1).
    @inline(__always)
    func adding(_ q: Precomputed) -> Ed25519Point {
        let a = (y - x) * q.yMinusX
        let b = (y + x) * q.yPlusX
        let c = t * q.xy2d
        let dd = z.doubled
        let e = b - a
        let f = dd - c
        let g = dd + c
        let h = b + a
        return Ed25519Point(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// self + q for points in extended coordinates: 9 products (HWCD section 3.1, k = 2d).
    func adding(_ q: Ed25519Point) -> Ed25519Point {
        let a = (y - x) * (q.y - q.x)
        let b = (y + x) * (q.y + q.x)
        let c = t * Ed25519Point.d2 * q.t
        let dd = (z * q.z).doubled
        let e = b - a
        let f = dd - c
        let g = dd + c
        let h = b + a
        return Ed25519Point(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// 2·self: 4 squarings and 4 products (HWCD "dbl" for a = -1, which reads no T).
    ///
    /// With A = X², B = Y², C = 2Z² the formulas give E = 2XY, G = B - A, F = G - C, H = -(A + B); all four
    /// are negated here (the results are products of two of them, so nothing changes) to keep every
    /// intermediate a sum rather than a difference of differences.
    @inline(__always)
    func doubled() -> Ed25519Point {
        let aa = x.squared
        let bb = y.squared
        let cc = z.squared.doubled
        let h = aa + bb  // -H
        let e = h - (x + y).squared  // -E: A + B - (X + Y)^2 = -2XY
        let g = aa - bb  // -G
        let f = g + cc  // -F
        return Ed25519Point(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    // MARK: Encoding

    /// The RFC 8032 encoding (section 5.1.2) given 1/Z: y little-endian with x's parity in bit 255.
    func encode(zInverse: Field, into out: UnsafeMutableRawPointer) {
        let ax = x * zInverse
        let ay = y * zInverse
        ay.encode(into: out)
        let odd = UInt8(truncatingIfNeeded: ax.canonicalWords.0 & 1)
        out.storeBytes(of: out.load(fromByteOffset: 31, as: UInt8.self) | odd << 7, toByteOffset: 31, as: UInt8.self)
    }
}
