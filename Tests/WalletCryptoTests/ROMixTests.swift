import TestSupport
import Testing

@testable import ScryptKernel
@testable import WalletCrypto

/// The three layers under scrypt, each against its RFC 7914 vector (sections 8, 9 and 10), through the
/// diagonal word order the kernel keeps in memory.
@Suite struct ROMixTests {
    static func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex)! }

    /// `body` on the bytes loaded in diagonal order (`subBlocks` of 64 bytes), stored back in RFC order.
    static func throughDiagonal(
        _ input: [UInt8], _ body: (UnsafeMutablePointer<ROMix.Lanes>, UnsafeMutablePointer<ROMix.Lanes>) -> Void
    ) -> [UInt8] {
        let subBlocks = input.count / 64
        let lanes = UnsafeMutablePointer<ROMix.Lanes>.allocate(capacity: 4 * subBlocks)
        defer { lanes.deallocate() }
        let out = UnsafeMutablePointer<ROMix.Lanes>.allocate(capacity: 4 * subBlocks)
        defer { out.deallocate() }
        input.withUnsafeBytes { ROMix.loadDiagonal($0.baseAddress!, into: lanes, subBlocks: subBlocks) }
        body(lanes, out)
        var result = [UInt8](repeating: 0, count: input.count)
        result.withUnsafeMutableBytes { ROMix.storeDiagonal(out, into: $0.baseAddress!, subBlocks: subBlocks) }
        return result
    }

    static let blockMixInput =
        "f7ce0b653d2d72a4108cf5abe912ffdd777616dbbb27a70e8204f3ae2d0f6fad89f68f4811d1e87bcc3bd7400a9ffd29094f0184639574f39ae5a1315217bcd7894991447213bb226c25b54da86370fbcd984380374666bb8ffcb5bf40c254b067d27c51ce4ad5fed829c90b505a571b7f4d1cad6a523cda770e67bceaaf7e89"

    @Test func salsa20_8Section8() {
        let input = Self.bytes(
            "7e879a214f3ec9867ca940e641718f26baee555b8c61c1b50df846116dcd3b1dee24f319df9b3d8514121e4b5ac5aa3276021d2909c74829edebc68db8b8c25e"
        )
        let output = Self.throughDiagonal(input) { lanes, out in
            (out[0], out[1], out[2], out[3]) = ROMix.salsa20_8(lanes[0], lanes[1], lanes[2], lanes[3])
        }
        #expect(
            Hex.encode(output)
                == "a41f859c6608cc993b81cacb020cef05044b2181a2fd337dfd7b1c6396682f29b4393168e3c9e6bcfe6bc5b7a06d96bae424cc102c91745c24ad673dc7618f81"
        )
    }

    @Test func blockMixSection9() {
        let output = Self.throughDiagonal(Self.bytes(Self.blockMixInput)) { lanes, out in
            ROMix.blockMix(ROMix.Lanes.self, lanes, xoring: nil, into: out, r: 1)
        }
        #expect(
            Hex.encode(output)
                == "a41f859c6608cc993b81cacb020cef05044b2181a2fd337dfd7b1c6396682f29b4393168e3c9e6bcfe6bc5b7a06d96bae424cc102c91745c24ad673dc7618f8120edc975323881a80540f64c162dcd3c21077cfe5f8d5fe2b1a4168f953678b77d3b3d803b60e4ab920996e59b4d53b65d2a225877d5edf5842cb9f14eefe425"
        )
        // BlockMix(X xor V) with V = 0 is BlockMix(X); with V = X the input is all zeros, whose BlockMix
        // is Salsa20/8 of zeros (zeros) in every sub-block.
        let input = Self.bytes(Self.blockMixInput)
        let xoredWithItself = Self.throughDiagonal(input) { lanes, out in
            ROMix.blockMix(ROMix.Lanes.self, lanes, xoring: lanes, into: out, r: 1)
        }
        #expect(xoredWithItself == [UInt8](repeating: 0, count: 128))
    }

    @Test func roMixSection10() {
        var block = Self.bytes(Self.blockMixInput)
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: ROMix.scratchBytes(n: 16, r: 1)!, alignment: 64)
        defer { scratch.deallocate() }
        block.withUnsafeMutableBytes { ROMix.mix($0.baseAddress!, n: 16, r: 1, scratch: scratch) }
        #expect(
            Hex.encode(block)
                == "79ccc193629debca047f0b70604bf6b62ce3dd4a9626e355fafc6198e6ea2b46d58413673b99b029d665c357601fb426a0b2f4bba200ee9f0a43d19b571a9c71ef1142e65d5a266fddca832ce59faa7cac0b9cf1be2bffca300d01ee387619c4ae12fd4438f203a0e4e1c47ec314861f4e9087cb33396a6873e8f9d2539a4b8e"
        )
    }

    /// Two instances interleaved give what each gives alone: the RFC vector beside other blocks, at r = 1
    /// and r = 3.
    @Test func pairMatchesSingles() {
        for (n, r) in [(16, 1), (64, 3)] {
            let first = r == 1 ? Self.bytes(Self.blockMixInput) : (0..<(128 * r)).map { UInt8(truncatingIfNeeded: $0) }
            let second = (0..<(128 * r)).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
            let bytes = ROMix.scratchBytes(n: n, r: r)!
            let scratch = (
                UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64),
                UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            )
            defer {
                scratch.0.deallocate()
                scratch.1.deallocate()
            }
            var (pairFirst, pairSecond) = (first, second)
            pairFirst.withUnsafeMutableBytes { a in
                pairSecond.withUnsafeMutableBytes { b in
                    ROMix.mixPair(a.baseAddress!, b.baseAddress!, n: n, r: r, scratch: scratch)
                }
            }
            var (aloneFirst, aloneSecond) = (first, second)
            aloneFirst.withUnsafeMutableBytes { ROMix.mix($0.baseAddress!, n: n, r: r, scratch: scratch.0) }
            aloneSecond.withUnsafeMutableBytes { ROMix.mix($0.baseAddress!, n: n, r: r, scratch: scratch.1) }
            #expect(pairFirst == aloneFirst, "n = \(n), r = \(r)")
            #expect(pairSecond == aloneSecond, "n = \(n), r = \(r)")
            #expect(pairFirst != first)
            if r == 1 { #expect(Hex.encode(pairFirst).hasPrefix("79ccc193629debca")) }
        }
    }

    @Test func scratchSize() {
        #expect(ROMix.scratchBytes(n: 262_144, r: 8) == 1024 * 262_146)
        #expect(ROMix.scratchBytes(n: Int.max / 2, r: 8) == nil)
        #expect(ROMix.scratchBytes(n: 16, r: Int.max / 64) == nil)
    }
}
