/// The multiples k·32^j·B of the Ed25519 base point for k = 1...16 and j = 0..<52, in affine precomputed
/// form, and their constant-time lookup.
///
/// With the scalar written in 52 signed radix-32 digits e_j (a = Σ e_j·32^j, e_j in [-16, 16)),
/// a·B = Σ_j e_j·32^j·B: 52 table additions, no doubling.
///
/// The table is computed from B at first use (104 inversions, 780 additions and 52 doublings), not
/// pasted in: B is derived from its definition (y = 4/5, x even), each row's multiples by repeated mixed
/// addition, the next row's base (32 times this one's) by doubling the 16th multiple, and every row made
/// affine with one batched inversion. 52 × 16 entries of 96 bytes: 78 KiB, read in order, one 1.5 KiB row
/// per digit.
final class Ed25519BaseTable: @unchecked Sendable {  // written once in init, read-only afterwards
    typealias Field = Ed25519FieldElement
    typealias Precomputed = Ed25519Point.Precomputed

    /// Rows (32^j·B) and multiples per row.
    static let rows = Ed25519.radix32Digits
    static let multiples = 16
    /// Words per entry: three canonical field elements of four 64-bit words (96 bytes, not 120 as five
    /// limbs would take: the lookup reads every entry, so its cost is the table's size).
    static let entryWords = 12

    /// The process-wide table, built by the first key derivation (Swift runs a global's initializer once).
    static let shared = Ed25519BaseTable()

    /// rows × multiples × entryWords words; entry (j, k) holds (k + 1)·32^j·B: y + x, y - x and 2d·x·y, each
    /// as its canonical value in four little-endian words.
    private let words: UnsafeMutablePointer<UInt64>

    /// Words per entry of the lane form: three elements of ten ``Ed25519LaneField`` limbs, one word each.
    static let laneEntryWords = 30

    /// The same entries in the lane form (rows × multiples × laneEntryWords words, 195 KiB), for
    /// ``selectLanes(row:digits:masks:)``: each limb is broadcast to the lanes as it is read.
    private let laneWords: UnsafeMutablePointer<UInt64>

    private init() {
        let count = Self.rows * Self.multiples * Self.entryWords
        words = UnsafeMutableRawPointer.allocate(byteCount: count * 8, alignment: 64).bindMemory(
            to: UInt64.self, capacity: count)
        words.initialize(repeating: 0, count: count)
        let laneCount = Self.rows * Self.multiples * Self.laneEntryWords
        laneWords = UnsafeMutableRawPointer.allocate(byteCount: laneCount * 8, alignment: 64).bindMemory(
            to: UInt64.self, capacity: laneCount)
        laneWords.initialize(repeating: 0, count: laneCount)
        var rowBase = Ed25519Point.base
        for row in 0..<Self.rows {
            let step = Precomputed(x: rowBase.x, y: rowBase.y)
            var multiples = [rowBase]
            for _ in 1..<Self.multiples { multiples.append(multiples[multiples.count - 1].adding(step)) }
            var zInverses = multiples.map(\.z)
            Field.invertInPlace(&zInverses)
            for (k, point) in multiples.enumerated() {
                let entry = Precomputed(x: point.x * zInverses[k], y: point.y * zInverses[k])
                store(entry, at: (row * Self.multiples + k) * Self.entryWords)
            }
            // 32·P = 2·(16·P): one doubling of the last multiple, then back to affine for the next row.
            let next = multiples[Self.multiples - 1].doubled()
            let zInverse = next.z.inverted
            let x = next.x * zInverse
            let y = next.y * zInverse
            rowBase = Ed25519Point(x: x, y: y, z: .one, t: x * y)
        }
    }

    private func store(_ entry: Precomputed, at offset: Int) {
        let laneOffset = offset / Self.entryWords * Self.laneEntryWords
        for (index, element) in [entry.yPlusX, entry.yMinusX, entry.xy2d].enumerated() {
            let base = words + offset + index * 4
            (base[0], base[1], base[2], base[3]) = element.canonicalWords
            let limbs = Ed25519LaneField.limbs(words: base[0], base[1], base[2], base[3])
            (laneWords + laneOffset + index * 10).update(from: limbs, count: 10)
        }
    }

    /// digit·32^row·B for a digit in [-16, 16], in constant time.
    ///
    /// All sixteen entries of the row are read, every time, and combined with masks (four words at a time);
    /// the digit's sign and magnitude come from arithmetic shifts; the negation is a masked swap and a
    /// masked select. So neither the memory touched nor the instructions run depend on the digit.
    @inline(__always)
    func select(row: Int, digit: Int8) -> Precomputed {
        typealias Words = SIMD4<UInt64>
        let value = Int64(digit)
        let sign = UInt64(bitPattern: value >> 63)  // all ones when negative
        let magnitude = UInt64(bitPattern: (value ^ (value >> 63)) &- (value >> 63))
        let isZero = 0 &- ((magnitude &- 1) >> 63)  // all ones when the digit is 0
        var yPlusX = Words(isZero & 1, 0, 0, 0)
        var yMinusX = yPlusX
        var xy2d = Words()
        var entry = UnsafeRawPointer(words + row * Self.multiples * Self.entryWords)
        for k in 1...UInt64(Self.multiples) {
            // (m ^ k) - 1 has its top bit set only when m == k (both are at most 16).
            let mask = Words(repeating: 0 &- (((magnitude ^ k) &- 1) >> 63))
            yPlusX |= entry.loadUnaligned(as: Words.self) & mask
            yMinusX |= entry.loadUnaligned(fromByteOffset: 32, as: Words.self) & mask
            xy2d |= entry.loadUnaligned(fromByteOffset: 64, as: Words.self) & mask
            entry += Self.entryWords * 8
        }
        return Precomputed(
            yPlusX: Field(words: yPlusX[0], yPlusX[1], yPlusX[2], yPlusX[3]),
            yMinusX: Field(words: yMinusX[0], yMinusX[1], yMinusX[2], yMinusX[3]),
            xy2d: Field(words: xy2d[0], xy2d[1], xy2d[2], xy2d[3])
        ).negated(mask: sign)
    }
}

extension Ed25519BaseTable {
    typealias LaneField = Ed25519LaneField
    typealias Lanes = Ed25519LaneField.Lanes

    /// digit_n·32^row·B in lane n, for one digit in [-16, 16] per lane, in constant time; `masks` has room for 16
    /// lane masks (secret: the caller wipes it).
    ///
    /// As ``select(row:digit:)``, lane by lane: every entry of the row is read for every lane and kept by
    /// masks, the sign applied by masked swaps.
    @inline(__always)
    func selectLanes(row: Int, digits: LaneField.LaneDigits, masks: UnsafeMutablePointer<Lanes>)
        -> Ed25519LanePoint.Precomputed
    {
        let sign = Lanes(truncatingIfNeeded: digits &>> 63)  // all ones in the negative lanes
        let magnitude = Lanes(truncatingIfNeeded: (digits ^ (digits &>> 63)) &- (digits &>> 63))
        for k in 0..<Self.multiples {
            // (m ^ k) - 1 has its top bit set only when m == k (both are at most 16).
            masks[k] = Lanes() &- (((magnitude ^ Lanes(repeating: UInt64(k + 1))) &- 1) &>> 63)
        }
        let isZero = Lanes() &- ((magnitude &- 1) &>> 63)
        let row = UnsafePointer(laneWords + row * Self.multiples * Self.laneEntryWords)
        @inline(__always) func limb(_ index: Int) -> Lanes {
            var value = Lanes()
            for k in 0..<Self.multiples {
                value |= Lanes(repeating: row[k * Self.laneEntryWords + index]) & masks[k]
            }
            return value
        }
        @inline(__always) func element(_ first: Int, plus identity: Lanes) -> LaneField {
            LaneField(
                v0: limb(first) | identity, v1: limb(first + 1), v2: limb(first + 2), v3: limb(first + 3),
                v4: limb(first + 4), v5: limb(first + 5), v6: limb(first + 6), v7: limb(first + 7),
                v8: limb(first + 8), v9: limb(first + 9))
        }
        // The identity (y + x = y - x = 1, 2dxy = 0) where the digit is 0.
        let one = isZero & Lanes(repeating: 1)
        let yPlusX = element(0, plus: one)
        let yMinusX = element(10, plus: one)
        let xy2d = element(20, plus: Lanes())
        // Negation swaps y + x with y - x and negates 2d·x·y (the entry is canonical, so tight).
        return Ed25519LanePoint.Precomputed(
            yPlusX: .select(yPlusX, yMinusX, mask: sign), yMinusX: .select(yMinusX, yPlusX, mask: sign),
            xy2d: .select(xy2d, LaneField.zero - xy2d, mask: sign))
    }
}

extension Ed25519FieldElement {
    /// Replaces every element by its inverse with one field inversion and 3(n - 1) products
    /// (Montgomery's trick: invert the product of all, then peel the factors off from the end).
    ///
    /// Constant time in the values; none may be zero (a Z coordinate never is).
    static func invertInPlace(_ elements: inout [Ed25519FieldElement]) {
        elements.withUnsafeMutableBufferPointer { buffer in
            let count = buffer.count
            guard count > 0 else { return }
            let prefix = UnsafeMutablePointer<Ed25519FieldElement>.allocate(capacity: count)
            defer { prefix.deallocate() }
            invertInPlace(buffer.baseAddress!, count: count, scratch: prefix)
        }
    }

    /// Montgomery's trick on `count` elements at `elements`, using `scratch` (room for `count`) for the
    /// running products.
    static func invertInPlace(
        _ elements: UnsafeMutablePointer<Ed25519FieldElement>, count: Int,
        scratch: UnsafeMutablePointer<Ed25519FieldElement>
    ) {
        guard count > 0 else { return }
        // scratch[i] = e0·e1·...·ei
        var running = elements[0]
        scratch[0] = running
        for i in 1..<count {
            running = running * elements[i]
            scratch[i] = running
        }
        // inverse = 1/(e0·...·ei); then 1/ei = inverse·(e0·...·e(i-1)) and inverse·ei = 1/(e0·...·e(i-1)).
        var inverse = running.inverted
        var i = count - 1
        while i > 0 {
            let element = elements[i]
            elements[i] = inverse * scratch[i - 1]
            inverse = inverse * element
            i -= 1
        }
        elements[0] = inverse
    }
}
