/// Four or eight points of edwards25519 side by side (lane n of every coordinate is point n), in extended
/// coordinates: ``Ed25519Point`` over ``Ed25519LaneField``, for deriving that many public keys at once.
///
/// Only what a·B by table lookups needs: the identity, the mixed addition of a table entry, and the
/// lanes taken apart again.
struct Ed25519LanePoint {
    typealias Field = Ed25519LaneField

    var x: Field
    var y: Field
    var z: Field
    var t: Field

    static let identity = Ed25519LanePoint(x: .zero, y: .one, z: .one, t: .zero)

    /// Affine points as (y + x, y - x, 2d·x·y), as ``Ed25519Point/Precomputed``: table entries, or
    /// their negations (the last coordinate then 2p - 2d·x·y, no longer tight but below 2^27 and 2^26).
    struct Precomputed {
        var yPlusX: Field
        var yMinusX: Field
        var xy2d: Field
    }

    /// self + q: 7 products, the formulas of ``Ed25519Point/adding(_:)-(Ed25519Point.Precomputed)``.
    ///
    /// Within `*`'s bounds (tight inputs): y - x, y + x, e, g and h have limbs below 2^27.6 / 2^26.6 and
    /// go left or right; f = 2z + 2p - c reaches 2^28 / 2^27.1, so it is always the left operand.
    @inline(__always)
    func adding(_ q: Precomputed) -> Ed25519LanePoint {
        let a = (y - x) * q.yMinusX
        let b = (y + x) * q.yPlusX
        let c = t * q.xy2d
        let dd = z.doubled
        let e = b - a
        let f = dd - c
        let g = dd + c
        let h = b + a
        return Ed25519LanePoint(x: f * e, y: g * h, z: f * g, t: e * h)
    }

    /// Lane `n` as a point of its own.
    func lane(_ n: Int) -> Ed25519Point {
        Ed25519Point(x: x.lane(n), y: y.lane(n), z: z.lane(n), t: t.lane(n))
    }
}
