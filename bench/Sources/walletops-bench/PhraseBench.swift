import Foundation
import KeyFormats
import WalletCrypto

/// Recovery phrases per second (issue 27): a phrase read and checked, its seed (PBKDF2-HMAC-SHA512, 2,048
/// rounds through OpenSSL) and 1 or 20 accounts on `m/44'/60'/0'/0/i`, on two threads, beside
/// eth-account in two processes on the same phrases (`bench/peers/phrase_peer.py`), and the seed alone
/// against the C floor (`bench/floor/crypto_floor.c`).
///
///     walletops-bench phrases [--phrases N] [--peer-phrases M] [--python PATH] [--floor FILE]
///     walletops-bench phrases --seed-only [--floor FILE]
///
/// `--seed-only` prints the seed's line alone (the PBKDF2 step against the C floor, for `make bench`).
/// The peer derives 20 accounts of the first M phrases (default 200), once: its Python BIP-32 is slow
/// enough that three rounds of the whole input would dominate `make bench-micro` (docs/bench.md
/// "Recovery phrases" has the figures).
enum PhraseBench {
    static func run(_ arguments: [String]) throws -> String {
        if arguments.contains("--seed-only") {
            return try seedLine(try Mnemonic(entropy: SecretBytes.random(count: 16)), arguments: arguments)
        }
        let count = value(arguments, "--phrases").flatMap { Int($0) } ?? 2_000
        let python = value(arguments, "--python") ?? ".build/oracle-venv/bin/python"
        let peerPhrases = min(count, value(arguments, "--peer-phrases").flatMap { Int($0) } ?? 200)
        // Random test phrases (fresh entropy), written for the peer.
        let phrases = (0..<count).map { _ in try! Mnemonic(entropy: SecretBytes.random(count: 16)).canonicalPhrase }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("phrases-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        var text = Data()
        for phrase in phrases { phrase.withUnsafeBytes { text.append(contentsOf: $0) }; text.append(0x0A) }
        try text.write(to: file)
        let fewer = FileManager.default.temporaryDirectory.appendingPathComponent("phrases-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: fewer) }
        var head = Data()
        for phrase in phrases.prefix(peerPhrases) {
            phrase.withUnsafeBytes { head.append(contentsOf: $0) }
            head.append(0x0A)
        }
        try head.write(to: fewer)

        var lines = [
            "| accounts per phrase | walletops phrases/s (2 threads) | CPU ms per phrase | eth-account phrases/s (2 processes) | ratio |",
            "|---:|---:|---:|---:|---:|",
        ]
        for accounts in [1, 20] {
            let (rate, cpu) = try ours(phrases, accounts: accounts)
            var peerRates: [String] = []
            var best = 0.0
            for mode in accounts == 1 ? ["from_mnemonic"] : ["from_mnemonic", "seed_once"] {
                let input = accounts == 1 ? file.path : fewer.path
                if let peer = peer(python, file: input, accounts: accounts, mode: mode, rounds: accounts == 1 ? 3 : 1) {
                    peerRates.append(String(format: "%.1f (%@)", peer, mode))
                    best = max(best, peer)
                }
            }
            lines.append(
                String(
                    format: "| %d | %.1f | %.3f | %@ | %@ |", accounts, rate, cpu,
                    peerRates.isEmpty ? "-" : peerRates.joined(separator: ", "),
                    best > 0 ? String(format: "%.2fx", rate / best) : "-"))
        }
        lines.append("")
        lines.append(
            "Seed alone (Mnemonic.seed, one thread, CPU time per call): "
                + (try seedLine(try Mnemonic(phrase: phrases[0]), arguments: arguments)))
        lines.append(
            "\(count) phrases of 12 words (the peer's 20-account rows: the first \(peerPhrases), one round); "
                + "walletops the fastest of 3 rounds, the peer's 1-account row too.")
        return lines.joined(separator: "\n")
    }

    /// The seed's CPU time per call on one thread, beside the C floor's `PKCS5_PBKDF2_HMAC` from the
    /// `--floor` file when given.
    static func seedLine(_ mnemonic: Mnemonic, arguments: [String]) throws -> String {
        let pbkdf2 = try CPUTime.perCall { _ = try mnemonic.seed() }
        let floor = readFloor(arguments)["PBKDF2-HMAC-SHA512, 2048 iterations (BIP-39 seed)"]
        return String(format: "%.1f us", pbkdf2)
            + (floor.map { String(format: "; C floor (PKCS5_PBKDF2_HMAC): %.1f us (%.2fx)", $0, pbkdf2 / $0) } ?? "")
    }

    /// Phrases per second and CPU milliseconds per phrase over two threads, fastest of three rounds.
    static func ours(_ phrases: [SecretBytes], accounts: Int) throws -> (Double, Double) {
        let indices = (0..<UInt32(accounts)).map { $0 }
        let scheme = DerivationScheme(.ethereum)
        var best = (rate: 0.0, cpu: Double.infinity)
        for _ in 0..<3 {
            let wallStart = Measure.now()
            let cpuStart = CPUTime.process()
            let halves = [Array(phrases[..<(phrases.count / 2)]), Array(phrases[(phrases.count / 2)...])]
            DispatchQueue.concurrentPerform(iterations: 2) { half in
                for phrase in halves[half] {
                    let mnemonic = try! Mnemonic(phrase: phrase)
                    let derived = try! PhraseAccounts.derive(
                        mnemonic, passphrase: SecretBytes([]), type: .ethereum, scheme: scheme, indices: indices)
                    precondition(derived.count == accounts)
                }
            }
            let seconds = (Measure.now() - wallStart) / 1e6
            let cpu = (CPUTime.process() - cpuStart) / 1e3 / Double(phrases.count)
            best = (max(best.rate, Double(phrases.count) / seconds), min(best.cpu, cpu))
        }
        return best
    }

    /// The peer's phrases per second, fastest of `rounds` runs; nil when it cannot run (no eth-account).
    static func peer(_ python: String, file: String, accounts: Int, mode: String, rounds: Int) -> Double? {
        var best: Double?
        for _ in 0..<rounds {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["bench/peers/phrase_peer.py", file, String(accounts), mode]
            let output = Pipe()
            process.standardOutput = output
            guard (try? process.run()) != nil else { return nil }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0,
                let rate = String(decoding: data, as: UTF8.self).split(separator: "\t").last
                    .flatMap({ Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
            else { return nil }
            best = max(best ?? 0, rate)
        }
        return best
    }

    static func value(_ arguments: [String], _ name: String) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
}
