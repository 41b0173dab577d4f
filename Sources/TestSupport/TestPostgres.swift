import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL server the tests use: `$WALLETOPS_TEST_POSTGRES` when set (a URL), else a throwaway
/// cluster that scripts/postgres.sh starts in `.build/test-postgres-<pid>` on first use and stops when the
/// test process exits. A real server, never a stand-in.
public enum TestPostgres {
    /// The server's URL (`postgresql://postgres@127.0.0.1:<port>/postgres`).
    ///
    /// - Throws: when no server can be started (the script's message).
    public static func url() throws -> String {
        switch shared {
        case .success(let url): return url
        case .failure(let error): throw error
        }
    }

    /// A fresh database on the server, for one test: its URL. Dropped when the cluster goes.
    public static func freshDatabase() throws -> String {
        let base = try url()
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try run(["psql", base, "-q", "-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE \(name)"])
        guard let slash = base.lastIndex(of: "/") else { return base }
        return String(base[...slash]) + name
    }

    /// A failure of the throwaway cluster.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    private static let shared: Result<String, Unavailable> = {
        if let url = ProcessInfo.processInfo.environment["WALLETOPS_TEST_POSTGRES"], !url.isEmpty {
            return .success(url)
        }
        let folder = Fixtures.repositoryRoot.appendingPathComponent(".build/test-postgres-\(getpid())").path
        do {
            let url = try run([script, "start", folder]).trimmingCharacters(in: .whitespacesAndNewlines)
            ownedFolder = folder
            atexit { TestPostgres.stopOwned() }
            return .success(url)
        } catch let error as Unavailable {
            return .failure(error)
        } catch {
            return .failure(Unavailable(description: "\(error)"))
        }
    }()

    private static let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/postgres.sh").path
    nonisolated(unsafe) private static var ownedFolder: String?

    private static func stopOwned() {
        guard let folder = ownedFolder else { return }
        _ = try? run([script, "remove", folder])
    }

    @discardableResult
    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Unavailable(
                description: "\(arguments.joined(separator: " ")): exit \(process.terminationStatus): \(message)")
        }
        return text
    }
}
