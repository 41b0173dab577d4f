/// scrypt's ROMix (RFC 7914 section 5) over BlockMix with the Salsa20/8 core (sections 3 and 4), one
/// instance at a time or two interleaved.
///
/// The whole cost of scrypt is here: at geth's n = 2^18, r = 8 it runs 8.4 million Salsa20/8 cores over
/// 256 MiB. Each core waits on the one before, so one instance leaves most of a CPU's vector units idle;
/// `mixPair` runs two instances in the two halves of 256-bit vectors, in about the time of one
/// (docs/bench.md "Keystore files"). The caller supplies the memory, so a run over many keystores keeps it
/// between derivations instead of paying the kernel to fault in and zero 65,536 fresh pages per file.
/// `make` compiles this module with optimization in debug builds too (Package.swift, scryptKernelSettings).
public enum ROMix {
    /// The bytes of scratch memory one instance needs: n blocks of V plus two working blocks, 128 * r
    /// bytes each; nil when the product overflows.
    public static func scratchBytes(n: Int, r: Int) -> Int? {
        let (blockBytes, o1) = (128).multipliedReportingOverflow(by: r)
        let (blocks, o2) = n.addingReportingOverflow(2)
        let (total, o3) = blockBytes.multipliedReportingOverflow(by: blocks)
        return o1 || o2 || o3 ? nil : total
    }

    /// Replaces the 128 * r bytes at `block` (RFC 7914 byte order) with ROMix_n of them.
    ///
    /// - Parameters:
    ///   - n: the cost, a power of two greater than 1 (the caller checks).
    ///   - r: the block size, at least 1.
    ///   - scratch: `scratchBytes(n:r:)` bytes, 16-byte aligned; left holding values derived from the block.
    public static func mix(_ block: UnsafeMutableRawPointer, n: Int, r: Int, scratch: UnsafeMutableRawPointer) {
        let lanes = lanes(scratch, n: n, r: r)
        loadDiagonal(block, into: lanes, subBlocks: 2 * r)
        storeDiagonal(run(Lanes.self, lanes, n: n, r: r), into: block, subBlocks: 2 * r)
    }

    /// `mix` of two blocks with the same n and r at once, each in its own scratch memory.
    public static func mixPair(
        _ first: UnsafeMutableRawPointer, _ second: UnsafeMutableRawPointer, n: Int, r: Int,
        scratch: (UnsafeMutableRawPointer, UnsafeMutableRawPointer)
    ) {
        let pair = (lanes(scratch.0, n: n, r: r), lanes(scratch.1, n: n, r: r))
        loadDiagonal(first, into: pair.0, subBlocks: 2 * r)
        loadDiagonal(second, into: pair.1, subBlocks: 2 * r)
        let result = run(PairLanes.self, pair, n: n, r: r)
        storeDiagonal(result.0, into: first, subBlocks: 2 * r)
        storeDiagonal(result.1, into: second, subBlocks: 2 * r)
    }

    typealias Lanes = SIMD4<UInt32>
    typealias PairLanes = SIMD8<UInt32>

    private static func lanes(_ scratch: UnsafeMutableRawPointer, n: Int, r: Int) -> UnsafeMutablePointer<Lanes> {
        precondition(n > 1 && n & (n - 1) == 0 && r >= 1, "ROMix: n must be a power of two > 1 and r >= 1")
        precondition(Int(bitPattern: scratch) & 15 == 0, "ROMix: scratch must be 16-byte aligned")
        return scratch.bindMemory(to: Lanes.self, capacity: 8 * r * (n + 2))
    }

    /// ROMix on blocks already in diagonal order at the start of their scratch (V_0); returns where the
    /// result is (one of the two working blocks after V).
    @inline(__always)
    static func run<L: SalsaLanes>(_: L.Type, _ v: L.Pointers, n: Int, r: Int) -> L.Pointers {
        let lanesPerBlock = 8 * r  // 128 * r bytes in 16-byte vectors
        // V_{i+1} = BlockMix(V_i); X = BlockMix(V_{n-1}).
        for i in 0..<(n - 1) {
            blockMix(
                L.self, L.advanced(v, by: i * lanesPerBlock), xoring: nil,
                into: L.advanced(v, by: (i + 1) * lanesPerBlock), r: r)
        }
        var current = L.advanced(v, by: n * lanesPerBlock)
        var next = L.advanced(current, by: lanesPerBlock)
        blockMix(L.self, L.advanced(v, by: (n - 1) * lanesPerBlock), xoring: nil, into: current, r: r)
        // n times: j = Integerify(X) mod n; X = BlockMix(X xor V_j).
        for _ in 0..<n {
            let vj = L.selectBlocks(v, by: current, lastSubBlock: 4 * (2 * r - 1), n: n, lanesPerBlock: lanesPerBlock)
            blockMix(L.self, current, xoring: vj, into: next, r: r)
            swap(&current, &next)
        }
        return current
    }

    /// The Salsa20 word held at position `4 * row + lane` of a sub-block in memory.
    ///
    /// Each 64-byte sub-block is kept with its four diagonals as the four vectors: (x0, x5, x10, x15),
    /// (x4, x9, x14, x3), (x8, x13, x2, x7), (x12, x1, x6, x11). Then a column round is four vector steps
    /// and a row round is the same steps after rotating three vectors' lanes. BlockMix's XORs and sums are
    /// word by word, so the order changes nothing else; it is undone when the result leaves.
    @inline(__always)
    static func salsaWord(row: Int, lane: Int) -> Int { (4 * row + 5 * lane) & 15 }

    static func loadDiagonal(_ bytes: UnsafeRawPointer, into lanes: UnsafeMutablePointer<Lanes>, subBlocks: Int) {
        for s in 0..<subBlocks {
            let base = bytes + 64 * s
            for row in 0..<4 {
                var vector = Lanes()
                for lane in 0..<4 {
                    let offset = 4 * salsaWord(row: row, lane: lane)
                    vector[lane] = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                }
                lanes[4 * s + row] = vector
            }
        }
    }

    static func storeDiagonal(_ lanes: UnsafePointer<Lanes>, into bytes: UnsafeMutableRawPointer, subBlocks: Int) {
        for s in 0..<subBlocks {
            let base = bytes + 64 * s
            for row in 0..<4 {
                let vector = lanes[4 * s + row]
                for lane in 0..<4 {
                    let offset = 4 * salsaWord(row: row, lane: lane)
                    base.storeBytes(of: vector[lane].littleEndian, toByteOffset: offset, as: UInt32.self)
                }
            }
        }
    }

    /// BlockMix_{Salsa20/8, r} of `input` (XORed word by word with `other` when given) into `output`:
    /// X = the last sub-block; for each sub-block i, X = Salsa20/8(X xor B_i), written to output sub-block
    /// i / 2 (even i) or r + i / 2 (odd i).
    @inline(__always)
    static func blockMix<L: SalsaLanes>(
        _: L.Type, _ input: L.Pointers, xoring other: L.Pointers?, into output: L.Pointers, r: Int
    ) {
        let last = 4 * (2 * r - 1)
        var a = L.load(input, last)
        var b = L.load(input, last + 1)
        var c = L.load(input, last + 2)
        var d = L.load(input, last + 3)
        if let other {
            a = a.xor(L.load(other, last))
            b = b.xor(L.load(other, last + 1))
            c = c.xor(L.load(other, last + 2))
            d = d.xor(L.load(other, last + 3))
        }
        for i in 0..<(2 * r) {
            var ia = L.load(input, 4 * i)
            var ib = L.load(input, 4 * i + 1)
            var ic = L.load(input, 4 * i + 2)
            var id = L.load(input, 4 * i + 3)
            if let other {
                ia = ia.xor(L.load(other, 4 * i))
                ib = ib.xor(L.load(other, 4 * i + 1))
                ic = ic.xor(L.load(other, 4 * i + 2))
                id = id.xor(L.load(other, 4 * i + 3))
            }
            (a, b, c, d) = salsa20_8(a.xor(ia), b.xor(ib), c.xor(ic), d.xor(id))
            let out = 4 * ((i & 1) * r + (i >> 1))
            a.store(into: output, out)
            b.store(into: output, out + 1)
            c.store(into: output, out + 2)
            d.store(into: output, out + 3)
        }
    }

    /// Salsa20/8 on sub-blocks in diagonal order (one per group of four lanes): four double rounds, then
    /// the input added back.
    @inline(__always)
    static func salsa20_8<L: SalsaLanes>(_ a0: L, _ b0: L, _ c0: L, _ d0: L) -> (L, L, L, L) {
        var a = a0
        var b = b0
        var c = c0
        var d = d0
        for _ in 0..<4 {
            // Column round: the quarter-rounds (x0, x4, x8, x12), (x5, x9, x13, x1), ... lane by lane.
            b = b.mixed(a, d, 7)
            c = c.mixed(b, a, 9)
            d = d.mixed(c, b, 13)
            a = a.mixed(d, c, 18)
            // Row round: (x0, x1, x2, x3), (x5, x6, x7, x4), ... once d, c and b are turned 1, 2 and 3 lanes.
            var rowB = d.turned1()
            var rowC = c.turned2()
            var rowD = b.turned3()
            rowB = rowB.mixed(a, rowD, 7)
            rowC = rowC.mixed(rowB, a, 9)
            rowD = rowD.mixed(rowC, rowB, 13)
            a = a.mixed(rowD, rowC, 18)
            d = rowB.turned3()
            c = rowC.turned2()
            b = rowD.turned1()
        }
        return (a.plus(a0), b.plus(b0), c.plus(c0), d.plus(d0))
    }
}

/// A vector of one or two Salsa20 diagonals (4 or 8 lanes), with where its instances' blocks live.
///
/// The arithmetic is in the requirements, implemented on each concrete type: generic code over `SIMD`
/// reaches the stdlib's lane-by-lane operators, which are slower (docs/bench.md "Keystore files").
protocol SalsaLanes: SIMD where Scalar == UInt32 {
    /// self ^ ((p + q) <<< bits), the step of a Salsa20 quarter-round.
    func mixed(_ p: Self, _ q: Self, _ bits: UInt32) -> Self
    func xor(_ other: Self) -> Self
    func plus(_ other: Self) -> Self
    /// One pointer to 16-byte vectors per instance.
    associatedtype Pointers
    static func load(_ pointers: Pointers, _ index: Int) -> Self
    func store(into pointers: Pointers, _ index: Int)
    static func advanced(_ pointers: Pointers, by vectors: Int) -> Pointers
    /// Each instance's V_j, j = Integerify(X) mod n: the last sub-block's words 0 and 1, little-endian.
    static func selectBlocks(_ v: Pointers, by x: Pointers, lastSubBlock: Int, n: Int, lanesPerBlock: Int) -> Pointers
    /// Lane i takes lane i + k of its group of four (k = 1, 2, 3).
    func turned1() -> Self
    func turned2() -> Self
    func turned3() -> Self
}

extension ROMix {
    /// j for the instance whose X is at `x`: word 0 sits at vector 0 lane 0 of the sub-block, word 1 at
    /// vector 3 lane 1 (`salsaWord`).
    ///
    /// The index of V it gives depends on the secret by design (RFC 7914: the memory-hard reads); the
    /// callers scale it with a wrapping product, which has no overflow check, so no branch depends on it
    /// (an overflow-checked `*` was one, found by `make ct-check`). j < n, so the product cannot wrap.
    @inline(__always)
    static func integerify(_ x: UnsafeMutablePointer<Lanes>, lastSubBlock: Int, n: Int) -> Int {
        let low = UInt64(x[lastSubBlock][0])
        let high = UInt64(x[lastSubBlock + 3][1])
        return Int(truncatingIfNeeded: (high << 32 | low) & UInt64(n - 1))
    }
}

extension SIMD4: SalsaLanes where Scalar == UInt32 {
    typealias Pointers = UnsafeMutablePointer<SIMD4<UInt32>>

    @inline(__always)
    func mixed(_ p: Self, _ q: Self, _ bits: UInt32) -> Self {
        let sum = p &+ q
        return self ^ ((sum &<< bits) | (sum &>> (32 &- bits)))
    }
    @inline(__always) func xor(_ other: Self) -> Self { self ^ other }
    @inline(__always) func plus(_ other: Self) -> Self { self &+ other }

    @inline(__always) static func load(_ pointers: Pointers, _ index: Int) -> Self { pointers[index] }
    @inline(__always) func store(into pointers: Pointers, _ index: Int) { pointers[index] = self }
    @inline(__always) static func advanced(_ pointers: Pointers, by vectors: Int) -> Pointers { pointers + vectors }
    @inline(__always)
    static func selectBlocks(_ v: Pointers, by x: Pointers, lastSubBlock: Int, n: Int, lanesPerBlock: Int) -> Pointers {
        v + ROMix.integerify(x, lastSubBlock: lastSubBlock, n: n) &* lanesPerBlock
    }
    @inline(__always) func turned1() -> Self { Self(self[1], self[2], self[3], self[0]) }
    @inline(__always) func turned2() -> Self { Self(self[2], self[3], self[0], self[1]) }
    @inline(__always) func turned3() -> Self { Self(self[3], self[0], self[1], self[2]) }
}

extension SIMD8: SalsaLanes where Scalar == UInt32 {
    typealias Pointers = (UnsafeMutablePointer<SIMD4<UInt32>>, UnsafeMutablePointer<SIMD4<UInt32>>)

    @inline(__always)
    func mixed(_ p: Self, _ q: Self, _ bits: UInt32) -> Self {
        let sum = p &+ q
        return self ^ ((sum &<< bits) | (sum &>> (32 &- bits)))
    }
    @inline(__always) func xor(_ other: Self) -> Self { self ^ other }
    @inline(__always) func plus(_ other: Self) -> Self { self &+ other }

    @inline(__always)
    static func load(_ pointers: Pointers, _ index: Int) -> Self {
        Self(lowHalf: pointers.0[index], highHalf: pointers.1[index])
    }
    @inline(__always)
    func store(into pointers: Pointers, _ index: Int) {
        pointers.0[index] = lowHalf
        pointers.1[index] = highHalf
    }
    @inline(__always)
    static func advanced(_ pointers: Pointers, by vectors: Int) -> Pointers {
        (pointers.0 + vectors, pointers.1 + vectors)
    }
    @inline(__always)
    static func selectBlocks(_ v: Pointers, by x: Pointers, lastSubBlock: Int, n: Int, lanesPerBlock: Int) -> Pointers {
        (
            v.0 + ROMix.integerify(x.0, lastSubBlock: lastSubBlock, n: n) &* lanesPerBlock,
            v.1 + ROMix.integerify(x.1, lastSubBlock: lastSubBlock, n: n) &* lanesPerBlock
        )
    }
    @inline(__always)
    func turned1() -> Self { Self(self[1], self[2], self[3], self[0], self[5], self[6], self[7], self[4]) }
    @inline(__always)
    func turned2() -> Self { Self(self[2], self[3], self[0], self[1], self[6], self[7], self[4], self[5]) }
    @inline(__always)
    func turned3() -> Self { Self(self[3], self[0], self[1], self[2], self[7], self[4], self[5], self[6]) }
}
