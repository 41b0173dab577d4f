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
        let process = Process()
        process.executableURL = interpreter
        process.arguments = ["-c", script] + arguments
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "oracle failed (\(process.terminationStatus)): \(String(decoding: err, as: UTF8.self))")
        }
        return String(decoding: out, as: UTF8.self)
    }
}
