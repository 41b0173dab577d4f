import Foundation
import WalletOpsCLI

/// `WALLETOPS_TUNING_OFF` for the pieces this executable builds itself (the engine, the core's store, the
/// primitives), read once: main.swift refuses an unknown name (exit 64) and sets the process-wide switches
/// before any work (docs/bench.md "Tuning mechanisms and how to switch them off").
enum BenchTuning {
    /// The variable parsed, or the usage error naming an unknown name.
    static let parsed = Result { () throws(CLIError) -> TuningSwitches in
        try TuningSwitches(environment: ProcessInfo.processInfo.environment)
    }

    /// The switches (every mechanism on when the variable was refused, which main.swift never lets run).
    static var current: TuningSwitches { (try? parsed.get()) ?? TuningSwitches() }
}
