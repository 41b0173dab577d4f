import Foundation

/// Runs a Python snippet in the oracle environment (`scripts/python-oracles.sh`: cryptography, PyJWT,
/// eth-account, solders), so tests compare our results with independent implementations.
public enum PythonOracle {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The interpreter: `$WALLETOPS_PYTHON`, else `.build/oracle-venv/bin/python`.
    public static var interpreter: URL {
        if let path = ProcessInfo.processInfo.environment["WALLETOPS_PYTHON"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return Fixtures.repositoryRoot.appendingPathComponent(".build/oracle-venv/bin/python")
    }

    /// Runs `script` with `stdin` as its standard input and returns its standard output.
    /// Throws when the interpreter is missing (run `make test`, which installs it) or the script fails.
    public static func run(_ script: String, stdin: String = "", arguments: [String] = []) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: interpreter.path) else {
            throw Failure(description: "no oracle interpreter at \(interpreter.path): run scripts/python-oracles.sh")
        }
        let child = try PipedProcess(interpreter, arguments: ["-c", script] + arguments)
        child.write(stdin)
        let finished = try child.finish()
        guard finished.status == 0 else {
            throw Failure(description: "oracle failed (\(finished.status)): \(finished.standardError)")
        }
        return finished.standardOutput
    }
}
