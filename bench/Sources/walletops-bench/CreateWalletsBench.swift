import Foundation
import OMSCore
import OMSProtocol
import WalletCrypto

/// `walletops-bench create [--wallets N] [--batch B] [--parallel P]`: `Waas/CreateWallets` in batches,
/// one signed-in client with P batches in flight, embedded (in-process) and served over HTTP, per
/// network family: wallets per second, CPU per wallet (every thread of the process: client, core and
/// server together) and its ratio to the floor, the key and address derivation each wallet cannot avoid.
enum CreateWalletsBench {
    /// The per-wallet floor, in CPU microseconds of one core.
    struct Floor {
        var ethereum: Double
        var solana: Double

        static func measure() throws -> Floor {
            var seed = [UInt8](repeating: 0x21, count: 32)
            var sink: UInt8 = 0
            func bump() {
                seed[31] &+= 1
                if seed[31] == 0 { seed[30] &+= 1 }
            }
            // CPU time, like the per-wallet cost it is compared with: on a shared machine wall time mostly
            // measures the neighbours.
            let ethereum = try CPUTime.perCall {
                bump()
                sink ^= Array(try Secp256k1.PrivateKey(SecretBytes(seed)).ethereumAddress.checksummed.utf8)[2]
            }
            let solana = try CPUTime.perCall {
                bump()
                sink ^= Array(try Ed25519.PrivateKey(seed: SecretBytes(seed)).solanaAddress.utf8)[0]
            }
            if sink == 0xff { print("") }  // keeps the work observable
            return Floor(ethereum: ethereum, solana: solana)
        }

        func microseconds(_ family: NetworkFamily) -> Double { family == .solana ? solana : ethereum }
    }

    static func option(_ arguments: [String], _ name: String, _ fallback: Int) -> Int {
        arguments.firstIndex(of: name).flatMap { arguments.dropFirst($0 + 1).first }.flatMap { Int($0) } ?? fallback
    }

    static func run(_ arguments: [String]) async throws -> String {
        let total = option(arguments, "--wallets", 20_000)
        let batch = option(arguments, "--batch", CreateWalletsRequest.maxReferences)
        let parallel = option(arguments, "--parallel", 4)
        let floor = try Floor.measure()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var table = Table(header: [
            "family", "transport", "wallets", "wallets/s", "CPU us/wallet", "floor us", "CPU / floor",
            "floor wallets/s (\(cores) cores)",
        ])
        for family in [NetworkFamily.evm, .solana] {
            let core = try CoreBench.Core()
            defer { try? FileManager.default.removeItem(at: core.home.url) }
            let transports: [(String, any WaasTransport)] = [
                ("in-process", InProcessTransport(handler: core.service)),
                ("HTTP", HTTPTransport(baseURL: core.server.baseURL, maxConnections: parallel)),
            ]
            for (name, transport) in transports {
                let client = try await core.clients(transport, count: 1)[0]
                let prefix = "\(family)-\(name)"
                _ = try await client.createWallets(networkFamily: family, references: ["\(prefix)-warm-up"])
                let cpu = CPUTime.process()
                let start = Measure.now()
                try await create(client, family: family, prefix: prefix, total: total, batch: batch, parallel: parallel)
                let seconds = (Measure.now() - start) / 1e6
                let cpuPerWallet = (CPUTime.process() - cpu) / Double(total)
                let floorMicroseconds = floor.microseconds(family)
                table.add([
                    family.rawValue, name, "\(total)", format(Double(total) / seconds, digits: 0),
                    format(cpuPerWallet, digits: 1), format(floorMicroseconds, digits: 1),
                    format(cpuPerWallet / floorMicroseconds, digits: 2),
                    format(Double(cores) * 1e6 / floorMicroseconds, digits: 0),
                ])
            }
            await core.server.stop(grace: .seconds(1))
        }
        return "## CreateWallets: batches of \(batch), \(parallel) in flight, one client\n\n" + table.render()
            + "\n\nfloor: secp256k1 key + keccak address + EIP-55 (evm), Ed25519 key from seed + base58 (solana), "
            + "one core; peak RSS \(format(Measure.peakRSSMiB(), digits: 0)) MiB"
    }

    /// `total` wallets `<prefix>-1...`, `batch` per request, `parallel` requests in flight; requests refused
    /// for arriving out of nonce order are sent again (they changed nothing).
    static func create(
        _ client: WaasClient, family: NetworkFamily, prefix: String, total: Int, batch: Int, parallel: Int
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            var inFlight = 0
            while next < total || inFlight > 0 {
                while inFlight < parallel && next < total {
                    let references = (next..<min(next + batch, total)).map { "\(prefix)-\($0 + 1)" }
                    next += references.count
                    inFlight += 1
                    group.addTask {
                        while true {
                            do {
                                let made = try await client.createWallets(networkFamily: family, references: references)
                                precondition(made.allSatisfy(\.created))
                                return
                            } catch let error as WaasError where error.code == .preconditionFailed {}
                        }
                    }
                }
                try await group.next()
                inFlight -= 1
            }
        }
    }
}
