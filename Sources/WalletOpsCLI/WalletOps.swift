import Foundation

/// The `walletops` command line.
public enum WalletOps {
    public static let version = "0.1.0"

    /// Runs the command line and returns the process exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        print("walletops \(version)")
        return 0
    }
}
