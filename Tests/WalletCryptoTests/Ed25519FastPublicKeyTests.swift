import Foundation
import TestSupport
import Testing

@testable import WalletCrypto

/// Our Swift fixed-base derivation (`Ed25519.publicKey(seed:)`, `Ed25519.publicKeys(seeds:)`) against RFC 8032,
/// against libsodium (`Ed25519.PrivateKey(seed:)`), and its parts against slower independent computations.
@Suite struct Ed25519FastPublicKeyTests {
    typealias Field = Ed25519FieldElement

    @Test func rfc8032Vectors() throws {
        let root = try #require(try Fixtures.json("vectors/ed25519_rfc8032.json") as? [String: Any])
        var tally = VectorTally("ed25519_rfc8032.json")
        var seeds: [SecretBytes] = []
        var expected: [String] = []
        for vector in try #require(root["vectors"] as? [[String: String]]) {
            let seedHex = try #require(vector["secret_key_seed"])
            let seed = SecretBytes(try #require(Hex.decode(seedHex)))
            let publicKey = try #require(vector["public_key"])
            #expect(
                Base16.encode(try Ed25519.publicKey(seed: seed).rawRepresentation) == publicKey, "\(vector["name"]!)")
            seeds.append(seed)
            expected.append(publicKey)
            tally.ran()
        }
        #expect(try Ed25519.publicKeys(seeds: seeds).map { Base16.encode($0.rawRepresentation) } == expected)
        tally.report()
        #expect(tally.ran == 5)
    }

    /// 3,000 random seeds in one batch (46 full chunks and a partial one) and 200 one at a time. (20,000
    /// took over a minute of CPU in a debug build and starved the suite's HTTP tests on 2 cores.)
    @Test func matchesLibsodiumOnRandomSeeds() throws {
        let seeds = (0..<3_000).map { _ in SecretBytes.random(count: 32) }
        let ours = try Ed25519.publicKeys(seeds: seeds)
        #expect(ours.count == 3_000)
        var compared = 0
        var mismatches = 0
        for (seed, key) in zip(seeds, ours) {
            if try Ed25519.PrivateKey(seed: seed).publicKey != key { mismatches += 1 }
            compared += 1
        }
        for seed in seeds.prefix(200) {
            if try Ed25519.PrivateKey(seed: seed).publicKey != Ed25519.publicKey(seed: seed) { mismatches += 1 }
            compared += 1
        }
        print("ed25519 fast public keys: \(compared) compared with libsodium, \(mismatches) mismatches")
        #expect(compared == 3_200)
        #expect(mismatches == 0)
    }

    /// Seeds at the edges of the byte range (all zero, all 0xff, single bits, single bytes) against libsodium.
    @Test func matchesLibsodiumOnEdgeSeeds() throws {
        var seeds: [[UInt8]] = [[UInt8](repeating: 0, count: 32), [UInt8](repeating: 0xff, count: 32)]
        for bit in 0..<256 {
            var seed = [UInt8](repeating: 0, count: 32)
            seed[bit / 8] = 1 << (bit % 8)
            seeds.append(seed)
            seeds.append(seed.map { ~$0 })
        }
        for byte in 0..<256 { seeds.append([UInt8](repeating: UInt8(byte), count: 32)) }
        let secrets = seeds.map { SecretBytes($0) }
        let ours = try Ed25519.publicKeys(seeds: secrets)
        var compared = 0
        for (seed, key) in zip(secrets, ours) {
            #expect(try Ed25519.PrivateKey(seed: seed).publicKey == key)
            compared += 1
        }
        #expect(compared == 2 + 512 + 256)
    }

    /// A batch gives the same keys as one call per seed, across the chunk boundary (64).
    @Test(arguments: [1, 2, 63, 64, 65, 128, 129])
    func batchEqualsSingles(count: Int) throws {
        let seeds = (0..<count).map { _ in SecretBytes.random(count: 32) }
        let batch = try Ed25519.publicKeys(seeds: seeds)
        #expect(batch.count == count)
        #expect(try batch == seeds.map { try Ed25519.publicKey(seed: $0) })
    }

    @Test func wrongLengthsAreRefusedAndEmptyIsEmpty() throws {
        #expect(throws: ECCError(.invalidKeyLength, "")) { try Ed25519.publicKey(seed: SecretBytes([1, 2, 3])) }
        let seeds = [SecretBytes.random(count: 32), SecretBytes.random(count: 31)]
        #expect(throws: ECCError(.invalidKeyLength, "")) { try Ed25519.publicKeys(seeds: seeds) }
        do {
            _ = try Ed25519.publicKeys(seeds: seeds)
        } catch {
            #expect("\(error)".contains("seed 1"))
        }
        #expect(try Ed25519.publicKeys(seeds: []).isEmpty)
    }

    /// d and B derived at first use equal the decimal values RFC 8032 section 5.1 prints; sqrt(-1) squares to -1.
    @Test func curveConstantsMatchRFC8032() {
        let d = "37095705934669439343138083508754565189542113879843219016388785533085940283555"
        #expect(Ed25519Point.d.bytes == Self.littleEndian(decimal: d))
        let bx = "15112221349535400772501151409588531511454012693041857206046113283949847762202"
        let by = "46316835694926478169428394003475163141307993866256225615783033603165251855960"
        #expect(Ed25519Point.base.x.bytes == Self.littleEndian(decimal: bx))
        #expect(Ed25519Point.base.y.bytes == Self.littleEndian(decimal: by))
        #expect((Ed25519Point.sqrtMinusOne.squared + .one).bytes == [UInt8](repeating: 0, count: 32))
    }

    /// Canonical encoding at the edges of the field: p, p + 5, p - 1 and 2^255 - 1 (as 32 bytes, bit 255 set
    /// only where the element reader must drop it), and non-reduced limbs.
    @Test func canonicalEncodingReducesModP() {
        func element(_ bytes: [UInt8]) -> Field { bytes.withUnsafeBytes { Field(littleEndian: $0.baseAddress!) } }
        var p = [UInt8](repeating: 0xff, count: 32)
        p[0] = 0xed
        p[31] = 0x7f
        #expect(element(p).bytes == [UInt8](repeating: 0, count: 32))
        var pPlus5 = p
        pPlus5[0] = 0xf2
        #expect(element(pPlus5).bytes == [5] + [UInt8](repeating: 0, count: 31))
        var pMinus1 = p
        pMinus1[0] = 0xec
        #expect(element(pMinus1).bytes == pMinus1)
        let allOnes = [UInt8](repeating: 0xff, count: 32)  // bit 255 dropped: 2^255 - 1 = p + 18
        #expect(element(allOnes).bytes == [18] + [UInt8](repeating: 0, count: 31))
        // Limbs of 2^54 - 1 each (the largest a product accepts) still encode to the value mod p.
        let big = Field(1 << 54 - 1, 1 << 54 - 1, 1 << 54 - 1, 1 << 54 - 1, 1 << 54 - 1)
        #expect(big.bytes == (big * .one).bytes)
        #expect((big * big.inverted).bytes == Field.one.bytes)
    }

    /// a·B through the table for edge and random scalars against a plain double-and-add over the bits of a,
    /// which shares only the field and the addition formulas with it (no table, no recoding, no lookups).
    @Test func tableMultipleMatchesDoubleAndAdd() {
        var scalars: [[UInt8]] = []
        var min = [UInt8](repeating: 0, count: 32)
        min[31] = 0x40  // 2^254, the smallest clamped scalar
        scalars.append(min)
        var max = [UInt8](repeating: 0xff, count: 32)
        max[0] = 0xf8
        max[31] = 0x7f  // 2^255 - 8, the largest clamped scalar
        scalars.append(max)
        scalars.append([UInt8](repeating: 0xff, count: 31) + [0x7f])  // every digit carries, the top one too
        scalars.append([UInt8](repeating: 0x00, count: 31) + [0x40])  // no digit carries
        scalars.append((0..<31).map { UInt8(($0 * 0x5a) & 0xff) } + [0x66])  // mixed windows
        scalars.append([UInt8](repeating: 0x7f, count: 32))  // bit 255 clear, not clamped
        scalars.append([1] + [UInt8](repeating: 0, count: 31))
        scalars.append([8] + [UInt8](repeating: 0, count: 31))
        scalars.append([0] + [UInt8](repeating: 0, count: 31))  // the identity
        for _ in 0..<100 {
            var random = SecretBytes.random(count: 32).unsafeCopy()
            random[31] &= 0x7f
            scalars.append(random)
        }
        var digits = [Int8](repeating: 0, count: Ed25519.radix32Digits)
        var checked = 0
        for scalar in scalars {
            let fast = scalar.withUnsafeBufferPointer { a in
                digits.withUnsafeMutableBufferPointer { d in
                    Ed25519.basePointMultiple(
                        scalar: a.baseAddress!, digits: d.baseAddress!, table: Ed25519BaseTable.shared)
                }
            }
            #expect(digits.dropLast().allSatisfy { (-16...15).contains($0) } && (0...1).contains(digits[51]))
            #expect(Self.value(ofDigits: digits) == scalar)
            #expect(Self.encoded(fast) == Self.encoded(Self.doubleAndAdd(scalar)), "\(Base16.encode(scalar))")
            checked += 1
        }
        #expect(checked == 109)
    }

    // MARK: Independent references

    /// Σ digits[i]·32^i as 32 little-endian bytes (nil when it is negative or too wide).
    static func value(ofDigits digits: [Int8]) -> [UInt8]? {
        var bits = [Int](repeating: 0, count: 5 * digits.count)
        var carry = 0
        for i in digits.indices {
            let v = Int(digits[i]) + carry
            let window = ((v % 32) + 32) % 32
            carry = (v - window) / 32
            for b in 0..<5 { bits[5 * i + b] = window >> b & 1 }
        }
        guard carry == 0, bits[256...].allSatisfy({ $0 == 0 }) else { return nil }
        return (0..<32).map { byte in UInt8((0..<8).reduce(0) { $0 | bits[8 * byte + $1] << $1 }) }
    }

    /// a·B by doubling and adding from the top bit, with full extended additions: slow and simple.
    static func doubleAndAdd(_ scalar: [UInt8]) -> Ed25519Point {
        var result = Ed25519Point.identity
        for bit in (0..<256).reversed() {
            result = result.doubled()
            if scalar[bit / 8] >> (bit % 8) & 1 == 1 { result = result.adding(Ed25519Point.base) }
        }
        return result
    }

    static func encoded(_ point: Ed25519Point) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        out.withUnsafeMutableBytes { point.encode(zInverse: point.z.inverted, into: $0.baseAddress!) }
        return out
    }

    /// A decimal number below 2^256 as 32 little-endian bytes.
    static func littleEndian(decimal: String) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        for character in decimal {
            var carry = Int(character.wholeNumberValue!)
            for i in 0..<32 {
                let v = Int(bytes[i]) * 10 + carry
                bytes[i] = UInt8(v & 0xff)
                carry = v >> 8
            }
        }
        return bytes
    }
}
