import Foundation

/// walletops-bench: prints figures for `make bench`. Never a timed test.
///
///     walletops-bench crypto [--floor FILE]    primitives beside the C floor (FILE: "name<TAB>us" lines)
///     walletops-bench engine [--peer FILE] [--items N]  checkpointed noop items beside the Python peer
///                                              (FILE: "items<TAB>items_per_s<TAB>peak_rss_mib<TAB>cpu_s")
///     walletops-bench core [--requests N]      core requests per second, in-process and over HTTP
///     walletops-bench access [--grants N]      ListAccess over N grants, GetSessionUsage, transfers
///     walletops-bench import [--imports N]     attested imports per second beside the crypto floor
///     walletops-bench stage --home H ...        stages wallets and sessions in a walletops home (StageBench)
///     walletops-bench delay-proxy --to HOST:PORT [--port P] [--delay-ms D]   test-only delaying TCP proxy
///     walletops-bench import-batch [--batch N] [--batches M]   batched attested imports (ImportWallets)
///     walletops-bench ed25519 [--rounds N]     Ed25519 public keys: libsodium beside ours, single and batched
///     walletops-bench create [--wallets N] [--batch B] [--parallel P]
///                                              CreateWallets batches: wallets/s, CPU per wallet, floor
///     walletops-bench phrases [--phrases N] [--python PATH] [--floor FILE]
///                                              BIP-39 phrases/s with 1 and 20 accounts beside eth-account
let arguments = Array(CommandLine.arguments.dropFirst())

func readFloor(_ arguments: [String]) -> [String: Double] {
    guard let index = arguments.firstIndex(of: "--floor"), index + 1 < arguments.count,
        let text = try? String(contentsOfFile: arguments[index + 1], encoding: .utf8)
    else { return [:] }
    var floor: [String: Double] = [:]
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: "\t")
        if parts.count == 2, let value = Double(parts[1]) { floor[String(parts[0])] = value }
    }
    return floor
}

switch BenchTuning.parsed {
case .failure(let error):
    FileHandle.standardError.write(Data("walletops-bench: \(error.message)\n".utf8))
    exit(64)
case .success(let tuning):
    // The primitives' process-wide switches, before any work.
    tuning.applyProcessWide()
}

do {
    switch arguments.first ?? "crypto" {
    case "crypto":
        print("## Crypto primitives (fastest of 15 rounds; the same libraries from C in the same run)\n")
        print(try CryptoBench.run(floor: readFloor(arguments)))
    case "engine":
        print("## Engine: checkpointed noop items (release build; Python peer in the same run)\n")
        print(try await EngineBench.run(peer: EngineBench.readPeer(arguments), counts: EngineBench.counts(arguments)))
    case "core":
        let total = arguments.firstIndex(of: "--requests").flatMap { arguments.dropFirst($0 + 1).first }.flatMap {
            Int($0)
        }
        print("## Core requests per second (8 concurrent clients; floor = the crypto each request needs)\n")
        print(try await CoreBench.run(total: total ?? 2_000))
    case "access": print(try await AccessBench.run(arguments))
    case "import": print(try await ImportBench.run(arguments))
    case "stage": print(try await StageBench.run(arguments))
    case "delay-proxy": try DelayProxy.run(arguments)
    case "import-batch": print(try await ImportBench.runBatched(arguments))
    case "create": print(try await CreateWalletsBench.run(arguments))
    case "phrases":
        print(
            "## Recovery phrases: seed and accounts on m/44'/60'/0'/0/i (release build; eth-account in the same run)\n")
        print(try PhraseBench.run(arguments))
    case "ed25519":
        print("## Ed25519 public keys from seeds (1000 seeds; fastest of the rounds, measured in turns)\n")
        print(try Ed25519Bench.run(arguments))
    default:
        FileHandle.standardError.write(
            Data(
                ("usage: walletops-bench crypto [--floor FILE] | engine [--peer FILE] [--items N] | core [--requests N]"
                    + " | access [--grants N] | import [--imports N] | import-batch [--batch N] [--batches M]"
                    + " | stage --home H [--wallets W] [--sessions S] [--transfers T]"
                    + " | create [--wallets N] [--batch B] [--parallel P] | ed25519 [--rounds N]"
                    + " | phrases [--phrases N] [--python PATH] [--floor FILE]"
                    + " | delay-proxy --to HOST:PORT [--port P] [--delay-ms D]\n").utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("walletops-bench: \(error)\n".utf8))
    exit(1)
}
