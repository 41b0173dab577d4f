import Testing

@testable import WalletCrypto

/// The lane field (four or eight lanes, as built) of the batched Ed25519 derivation against the five-limb
/// field, lane by lane, up to the limb bounds its comments claim: a column sum that wrapped, or a carry
/// dropped, shows as a lane whose product differs.
@Suite struct Ed25519LaneFieldTests {
    typealias Lanes = Ed25519LaneField.Lanes
    typealias Field = Ed25519FieldElement

    /// Limb bounds (exclusive) per operand: even limbs, odd limbs.
    static let tight = (even: UInt64(1) << 26, odd: (UInt64(1) << 25) + (1 << 17))
    static let left = (even: UInt64(1) << 28, odd: UInt64(0x8800000))  // 2^27.09
    static let right = (even: UInt64(0xC200000), odd: UInt64(0x6100000))  // 2^27.6, 2^26.6

    /// A lane field with limbs drawn below the bounds (`extreme`: every limb at its bound minus one).
    static func random(
        _ bound: (even: UInt64, odd: UInt64), extreme: Bool, using rng: inout SystemRandomNumberGenerator
    ) -> Ed25519LaneField {
        func limb(_ index: Int) -> Lanes {
            let top = index % 2 == 0 ? bound.even : bound.odd
            let values = (0..<Ed25519LaneField.laneCount).map { _ in
                extreme ? top - 1 : UInt64.random(in: 0..<top, using: &rng)
            }
            return Lanes(values)
        }
        return Ed25519LaneField(
            v0: limb(0), v1: limb(1), v2: limb(2), v3: limb(3), v4: limb(4), v5: limb(5), v6: limb(6), v7: limb(7),
            v8: limb(8), v9: limb(9))
    }

    /// The value in lane `n`, as a five-limb element (limbs 2k and 2k + 1 make limb k: below 2^54 here).
    static func scalar(_ field: Ed25519LaneField, lane n: Int) -> Field { field.lane(n) }

    @Test func productsMatchTheFiveLimbFieldUpToTheBounds() {
        var rng = SystemRandomNumberGenerator()
        var compared = 0
        for round in 0..<400 {
            let extreme = round % 4 == 0
            let a = Self.random(Self.left, extreme: extreme, using: &rng)
            let b = Self.random(Self.right, extreme: extreme, using: &rng)
            let product = a * b
            for n in 0..<Ed25519LaneField.laneCount {
                let expected = Self.scalar(a, lane: n) * Self.scalar(b, lane: n)
                #expect(product.lane(n).canonicalWords == expected.canonicalWords, "round \(round) lane \(n)")
                // The output is tight: the next product may take it as either operand.
                for limb in [product.v0, product.v2, product.v4, product.v6, product.v8] {
                    #expect(limb[n] < Self.tight.even)
                }
                for limb in [product.v1, product.v3, product.v5, product.v7, product.v9] {
                    #expect(limb[n] < Self.tight.odd)
                }
                compared += 1
            }
        }
        #expect(compared == 400 * Ed25519LaneField.laneCount)
    }

    @Test func sumsAndDifferencesMatchTheFiveLimbField() {
        var rng = SystemRandomNumberGenerator()
        for round in 0..<100 {
            let a = Self.random(Self.tight, extreme: round % 4 == 0, using: &rng)
            let b = Self.random(Self.tight, extreme: round % 4 == 1, using: &rng)
            for n in 0..<Ed25519LaneField.laneCount {
                let (x, y) = (Self.scalar(a, lane: n), Self.scalar(b, lane: n))
                #expect((a - b).lane(n).canonicalWords == ((x - y) * .one).canonicalWords)
                #expect((a + b).lane(n).canonicalWords == ((x + y) * .one).canonicalWords)
            }
        }
    }

    /// Canonical words to limbs and back, for values at the edges (0, p - 1, 2^255 - 1 with bit 255
    /// dropped) and at random.
    @Test func limbsRoundTripCanonicalValues() {
        let edges: [Field] = [.zero, .one, Field.zero - .one, Ed25519Point.d, Ed25519Point.base.y]
        var rng = SystemRandomNumberGenerator()
        let random = (0..<20).map { _ in
            Field(
                words: UInt64.random(in: 0...UInt64.max, using: &rng), .random(in: 0...UInt64.max, using: &rng),
                .random(in: 0...UInt64.max, using: &rng), .random(in: 0...UInt64.max, using: &rng))
        }
        for element in edges + random {
            let lanes = Ed25519LaneField(repeating: element)
            for n in 0..<Ed25519LaneField.laneCount {
                #expect((lanes.lane(n) * .one).canonicalWords == (element * .one).canonicalWords)
            }
        }
    }
}
