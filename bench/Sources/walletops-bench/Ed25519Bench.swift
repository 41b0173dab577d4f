import Foundation
import WalletCrypto

/// `walletops-bench ed25519`: Ed25519 public keys from seeds, libsodium's `crypto_sign_seed_keypair`
/// (through `Ed25519.PrivateKey(seed:)`) beside our Swift derivation, one key per call and 1000 per call.
///
/// The three are measured in turns within each round, on the same 1000 seeds, so a busy neighbour slows
/// them alike; each figure is the fastest round, in the calling thread's CPU time (preemption by other
/// processes does not count) and in wall time.
enum Ed25519Bench {
    static func run(_ arguments: [String]) throws -> String {
        let rounds = arguments.firstIndex(of: "--rounds").flatMap { arguments.dropFirst($0 + 1).first }.flatMap {
            Int($0)
        }
        let keys = 1000
        let seeds = (0..<keys).map { _ in SecretBytes.random(count: 32) }
        // The three must agree before their speed means anything.
        let expected = try seeds.map { try Ed25519.PrivateKey(seed: $0).publicKey }
        guard try Ed25519.publicKeys(seeds: seeds) == expected,
            try seeds.map({ try Ed25519.publicKey(seed: $0) }) == expected
        else { throw BenchError("Ed25519: our public keys differ from libsodium's") }

        var sink: UInt8 = 0
        let variants: [(String, () throws -> Void)] = [
            (
                "libsodium crypto_sign_seed_keypair, 1 per call",
                { for seed in seeds { sink ^= try Ed25519.PrivateKey(seed: seed).publicKey.rawRepresentation[0] } }
            ),
            (
                "ours, 1 per call (Ed25519.publicKey(seed:))",
                { for seed in seeds { sink ^= try Ed25519.publicKey(seed: seed).rawRepresentation[0] } }
            ),
            (
                "ours, 1000 per call (Ed25519.publicKeys(seeds:))",
                { sink ^= try Ed25519.publicKeys(seeds: seeds)[0].rawRepresentation[0] }
            ),
        ]
        var cpu = [Double](repeating: .infinity, count: variants.count)
        var wall = [Double](repeating: .infinity, count: variants.count)
        for (_, body) in variants { try body() }  // warm-up (and the table's first use)
        for _ in 0..<(rounds ?? 9) {
            for (index, (_, body)) in variants.enumerated() {
                let cpuStart = CPUTime.microseconds(CLOCK_THREAD_CPUTIME_ID)
                let wallStart = Measure.now()
                try body()
                wall[index] = min(wall[index], (Measure.now() - wallStart) / Double(keys))
                cpu[index] = min(cpu[index], (CPUTime.microseconds(CLOCK_THREAD_CPUTIME_ID) - cpuStart) / Double(keys))
            }
        }
        var table = Table(header: [
            "derivation (1000 seeds)", "us/key cpu", "keys/s cpu", "us/key wall", "vs libsodium",
        ])
        for (index, (name, _)) in variants.enumerated() {
            table.add([
                name, format(cpu[index], digits: 2), format(1e6 / cpu[index], digits: 0),
                format(wall[index], digits: 2),
                index == 0 ? "-" : "\(format((1 - cpu[index] / cpu[0]) * 100, digits: 1))% less",
            ])
        }
        return table.render() + "\n(sink \(sink))"
    }
}
