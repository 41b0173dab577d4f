import Foundation
import Jobs
import OMSCore
import OMSProtocol
import WalletCrypto

/// What commands working on a core share: the home, the connection, and turning core, protocol and
/// transport errors into `CLIError`s with the documented exit codes.
enum CoreCommandSupport {
    /// The home of `--home` / `$WALLETOPS_HOME` / `./.walletops`.
    static func home(_ arguments: ParsedArguments, _ context: Context) -> CoreHome {
        CoreHome(url: arguments.homeDirectory(in: context))
    }

    /// Refuses `--core` for commands that work on the home's core files directly.
    static func requireEmbedded(_ arguments: ParsedArguments, _ command: String) throws {
        if arguments.coreURL != nil {
            throw CLIError.usage("'\(command)' works on the home's core, not a served one: drop --core")
        }
    }

    /// Runs `body`, mapping errors: not signed in, expired session, service errors and bad inputs exit 1;
    /// an unreachable core or issuer exits 75; a file that cannot be read exits 74.
    static func run<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CLIError {
            throw error
        } catch let error as JobsError {
            switch error.code {
            case .fetchFailed: throw CLIError(.temporaryFailure, error.message, underlying: error)
            default: throw CLIError(.failure, error.message, underlying: error)
            }
        } catch let error as WaasError {
            throw CLIError(.failure, "the core refused the request: \(error)", underlying: error)
        } catch let error as TransportError {
            let message = error.isUnreachable ? error.message : "the core is unreachable: \(error)"
            throw CLIError(.temporaryFailure, message, underlying: error)
        } catch let error as WaasClientError {
            throw CLIError(.failure, "\(error.method.name): \(error.message)", underlying: error)
        } catch let error as CoreHomeError {
            throw CLIError(.failure, error.description, underlying: error)
        } catch let error as WaasHTTPServerError {
            throw CLIError(.failure, "cannot serve: \(error)", underlying: error)
        }
    }

    /// Reads a small text file named on the command line (exit 74 when it cannot be read).
    static func readFile(_ path: String, _ context: Context, what: String, limit: Int = 1 << 20) throws -> String {
        let url = context.fileURL(path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CLIError.ioError("cannot read \(what) \(path)")
        }
        guard data.count <= limit else { throw CLIError.dataError("\(what) \(path) is larger than \(limit) bytes") }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError.dataError("\(what) \(path) is not UTF-8 text")
        }
        return text
    }
}
