// The constant-time claims checked from outside, the way ctgrind does (issue 28): under valgrind's
// memcheck, the secret bytes are marked undefined, so memcheck reports every branch ("Conditional jump or
// move depends on uninitialised value") and every memory address ("Use of uninitialised value of size 8")
// computed from them. `make ct-check` runs each case under memcheck and reads the error count.
//
//   walletops-ctcheck <ed25519-single | ed25519-lanes | romix | romix-pair | self-test> [--no-secrets]
//
// Each case derives from a few secrets, marks only its outputs defined again, and compares them with
// the same derivation run on defined copies (so a wrong result cannot pass). `--no-secrets` marks
// nothing: the baseline, which must report no error either. `self-test` branches on a secret byte on
// purpose: memcheck must report it, which shows the marking works.
internal import CValgrind
import Foundation
import ScryptKernel
import WalletCrypto

let arguments = CommandLine.arguments.dropFirst()
let markSecrets = !arguments.contains("--no-secrets")
guard let mode = arguments.first(where: { !$0.hasPrefix("--") }) else {
    print("usage: walletops-ctcheck <ed25519-single|ed25519-lanes|romix|romix-pair|self-test> [--no-secrets]")
    exit(64)
}

/// Marks `count` bytes at `pointer` as secret (undefined to memcheck), unless it is the baseline.
func secret(_ pointer: UnsafeRawPointer, _ count: Int) {
    if markSecrets { walletops_mark_undefined(pointer, count) }
}

/// `count` pseudo-random bytes from `seed` (not secret material: a fixed test pattern).
func pattern(_ seed: UInt64, count: Int) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

/// Seeds whose bytes are marked secret inside their own storage.
func secretSeeds(_ count: Int) -> [SecretBytes] {
    (0..<count).map { index in
        SecretBytes(count: 32) { buffer in
            buffer.copyBytes(from: pattern(UInt64(index + 1), count: 32))
            secret(buffer.baseAddress!, 32)
        }
    }
}

func expect(_ ok: Bool, _ what: String) {
    if !ok {
        print("ct-check \(mode): \(what) differs from the reference")
        exit(1)
    }
}

func ed25519(_ count: Int) throws {
    let keys = try Ed25519.publicKeys(seeds: secretSeeds(count))
    for (index, key) in keys.enumerated() {
        key.rawRepresentation.withUnsafeBytes { walletops_mark_defined($0.baseAddress!, $0.count) }
        let reference = try Ed25519.PrivateKey(seed: SecretBytes(pattern(UInt64(index + 1), count: 32))).publicKey
        expect(key.rawRepresentation == reference.rawRepresentation, "public key \(index)")
    }
}

func romix(pair: Bool) {
    let (n, r) = (64, 2)
    let blockBytes = 128 * r
    let scratchBytes = ROMix.scratchBytes(n: n, r: r)!
    func run(secretInput: Bool) -> [[UInt8]] {
        let blocks = (0..<2).map { _ in UnsafeMutableRawPointer.allocate(byteCount: blockBytes, alignment: 64) }
        let scratches = (0..<2).map { _ in UnsafeMutableRawPointer.allocate(byteCount: scratchBytes, alignment: 64) }
        defer { for pointer in blocks + scratches { pointer.deallocate() } }
        for (index, block) in blocks.enumerated() {
            block.copyMemory(from: pattern(UInt64(index + 7), count: blockBytes), byteCount: blockBytes)
            if secretInput { secret(block, blockBytes) }
        }
        if pair {
            ROMix.mixPair(blocks[0], blocks[1], n: n, r: r, scratch: (scratches[0], scratches[1]))
        } else {
            for index in 0..<2 { ROMix.mix(blocks[index], n: n, r: r, scratch: scratches[index]) }
        }
        return blocks.map { block in
            walletops_mark_defined(block, blockBytes)
            return Array(UnsafeRawBufferPointer(start: block, count: blockBytes))
        }
    }
    let checked = run(secretInput: true)
    expect(checked == run(secretInput: false), "ROMix output")
}

do {
    switch mode {
    case "ed25519-single": try ed25519(1)
    case "ed25519-lanes": try ed25519(9)
    case "romix": romix(pair: false)
    case "romix-pair": romix(pair: true)
    case "self-test":
        // A branch on a secret byte: memcheck must report it, or the check above proves nothing.
        let seed = secretSeeds(1)[0]
        let odd = seed.withUnsafeBytes { $0[0] & 1 == 1 }
        if odd { print("ct-check self-test: the secret byte is odd") }
    default:
        print("unknown case \(mode)")
        exit(64)
    }
} catch {
    print("ct-check \(mode): \(error)")
    exit(1)
}
let header = walletops_valgrind_header() == 1
let running = walletops_running_on_valgrind() > 0
print(
    "ct-check \(mode)\(markSecrets ? "" : " (baseline)"): results match; memcheck errors so far: "
        + (running ? String(walletops_memcheck_errors()) : header ? "not under valgrind" : "no valgrind header"))
