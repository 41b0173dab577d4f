/// Ends a command with an exit code after it has printed its own messages (diagnostics, a summary).
struct CommandExit: Error {
    let code: Int32
    init(_ code: ExitCode) { self.code = code.rawValue }
    init(code: Int32) { self.code = code }
}

extension Command {
    /// Runs `body`, turning a ``CommandExit`` into its code.
    func exiting(_ body: () async throws -> Int32) async throws -> Int32 {
        do {
            return try await body()
        } catch let exit as CommandExit {
            return exit.code
        }
    }
}
