import Foundation
import HomeLayout
import Jobs
import KeyFormats
import OMSCore
import OMSEmbedded
import OMSProtocol
import WalletCrypto

/// What commands working on a core share: the home, the connection, and turning core, protocol and
/// transport errors into `CLIError`s with the documented exit codes.
enum CoreCommandSupport {
    /// What the job actions of a run command are handed: its home, its working directory, and the embedded
    /// core opened with OMSEmbedded.
    static func jobServices(_ arguments: ParsedArguments, _ context: Context) -> JobServices {
        JobServices(
            home: arguments.home(in: context), workingDirectory: context.currentDirectory,
            inProcess: openInProcess(context.tuning.coreStore),
            keystoreDecryption: .automatic(pairsDecryptions: context.tuning.isOn(.keystorePairs)))
    }

    /// Opens a home's core in this process for the jobs, its store with `tuning`: its in-process transport and
    /// development issuer.
    static func openInProcess(_ tuning: CoreStore.Tuning) -> InProcessCoreOpener {
        { home in
            let core = try EmbeddedCore.open(home: home.url, storeTuning: tuning)
            return InProcessCore(
                transport: core.transport, developmentIssuer: core.developmentIssuer,
                prepareToClose: { await core.prepareToClose() })
        }
    }

    /// The home's core, its store with `tuning`, for the commands that administer it or read what only the
    /// home holds.
    ///
    /// - Throws: `JobsError.noCore` naming `walletops core init` when the home has none.
    static func embeddedCore(_ home: WalletHome, tuning: CoreStore.Tuning) throws -> EmbeddedCore {
        try CoreConnection.requireCore(home)
        return try EmbeddedCore.open(home: home.url, storeTuning: tuning)
    }

    /// The project of the home's core named `name`, else its first project.
    static func project(named name: String?, in core: EmbeddedCore) async throws -> ProjectRecord {
        let home = core.service.home
        let projects = try await core.service.projects()
        if let name {
            guard let project = projects.first(where: { $0.name == name }) else {
                throw JobsError(
                    .noCore,
                    "no project '\(name)' in \(home.url.path) (projects: \(projects.map(\.name).joined(separator: ", ")))"
                )
            }
            return project
        }
        guard let first = projects.first else { throw JobsError(.noCore, "\(home.url.path) has no project") }
        return first
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
        } catch let error as WalletHomeError {
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

extension CoreConnection {
    /// The connection of a command: the home's core, when it is opened, opened with OMSEmbedded, its store
    /// with `tuning`.
    static func open(home: WalletHome, coreURL: URL?, openHome: Bool = true, tuning: CoreStore.Tuning) throws
        -> CoreConnection
    {
        try open(
            home: home, coreURL: coreURL, openHome: openHome, inProcess: CoreCommandSupport.openInProcess(tuning))
    }

    /// The connection through `--core` (else the home's core `core`), with the development issuer of `core`.
    init(home: WalletHome, coreURL: URL?, core: EmbeddedCore) {
        self.init(
            home: home, coreURL: coreURL, transport: coreURL.map { HTTPTransport(baseURL: $0) } ?? core.transport,
            developmentIssuer: core.developmentIssuer)
    }

    /// The signed-in client of a command (see ``CoreConnection/signedIn(home:coreURL:inProcess:now:)``).
    static func signedIn(home: WalletHome, coreURL: URL?, tuning: CoreStore.Tuning) throws
        -> (connection: CoreConnection, credential: StoredCredential, client: WaasClient)
    {
        try signedIn(home: home, coreURL: coreURL, inProcess: CoreCommandSupport.openInProcess(tuning))
    }
}
