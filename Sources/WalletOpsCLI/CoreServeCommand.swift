import Foundation
import Jobs
import OMSCore

/// `walletops core serve`: serves the home's core over HTTP until SIGTERM or SIGINT.
struct CoreServeCommand: Command {
    static let listen = OptionSpec.option(
        "listen", valueName: "host:port", help: "The address to listen on (port 0 picks a free one).",
        default: "127.0.0.1:8787")

    let configuration = CommandConfiguration(
        name: "serve", abstract: "Serve the home's core over HTTP (the OMS wire protocol).",
        discussion: """
            POST /v1/Waas/<Method> and /v1/WaasPublic/<Method> go to the core; GET
            /.well-known/jwks.json and /.well-known/openid-configuration publish the ID-token issuer's
            keys. Prints 'listening on http://HOST:PORT' (the bound port) once ready. SIGTERM or SIGINT
            stops it gracefully: no new connections, requests in flight finish (up to 10 s), the
            database is closed, exit 0; a second signal cuts the wait short.
            """,
        options: CommonOptions.operatorOptions + [Self.listen])

    /// `host:port` or `[v6]:port`.
    static func parseListen(_ text: String) throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { throw CLIError.usage("--listen must be HOST:PORT with a port from 0 to 65535, got '\(text)'") }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw CLIError.usage("--listen must name a host, got '\(text)'") }
        return (host, port)
    }

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        try CoreCommandSupport.requireEmbedded(arguments, "core serve")
        let home = arguments.home(in: context)
        let (host, port) = try Self.parseListen(arguments.value(Self.listen) ?? "127.0.0.1:8787")
        try await CoreCommandSupport.run {
            let core = ServedCore(try CoreCommandSupport.embeddedCore(home, tuning: context.tuning.coreStore).service)
            let server = try WaasHTTPServer.start(
                handler: core, wellKnown: core,
                configuration: WaasHTTPServer.Configuration(host: host, port: port, maxBodyBytes: core.maxBodyBytes))
            context.standardOutput.writeLine("listening on \(server.baseURL.absoluteString)")
            context.standardError.writeLine("issuer: \(core.issuer); home: \(home.url.path)")
            await server.runUntilSignalled()
            // The server may outlive this scope; the core must not: releasing it closes the database.
            core.close()
            context.standardError.writeLine("stopped; database closed")
        }
        return ExitCode.success.rawValue
    }
}
