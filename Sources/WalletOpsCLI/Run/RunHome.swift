import Foundation
import Runner

/// The parts of the home folder the run commands use: `runs.sqlite` (checkpoints) and `reports/`.
struct RunHome {
    /// The home folder.
    let url: URL

    init(_ arguments: ParsedArguments, context: Context) {
        url = arguments.homeDirectory(in: context)
    }

    var storePath: String { url.appendingPathComponent("runs.sqlite").path }
    var reportsURL: URL { url.appendingPathComponent("reports") }

    /// Creates the folder (mode 0700: it holds checkpoints and credentials) when missing.
    func create() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            if !isDirectory.boolValue { throw CLIError.ioError("home \(url.path) exists and is not a folder") }
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIError.ioError("cannot create the home folder \(url.path): \(error.localizedDescription)")
        }
    }

    /// Opens (creating) the run store.
    func openStore() throws -> RunStore {
        try create()
        do {
            return try RunStore(path: storePath)
        } catch {
            throw CLIError.ioError("cannot open the run store \(storePath): \(error)")
        }
    }

    /// Opens the run store of a command that only reads: missing means there are no runs.
    func openExistingStore() throws -> RunStore {
        guard FileManager.default.fileExists(atPath: storePath) else {
            throw CLIError(.failure, "no run store at \(storePath) (no run has been started with this home)")
        }
        return try openStore()
    }

    /// The run `text` names (a run id), or a usage error.
    func run(_ text: String, in store: RunStore) async throws -> RunRecord {
        guard let id = Int64(text) else { throw CLIError.usage("'\(text)' is not a run id (see 'walletops runs')") }
        guard let record = try await store.run(id: id) else {
            throw CLIError(.failure, "no run \(id) in \(storePath)")
        }
        return record
    }
}
