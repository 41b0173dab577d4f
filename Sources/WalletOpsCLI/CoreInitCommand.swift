import OMSCore

/// `walletops core init`: creates (or finds) the embedded core of a home and prints its project's keys.
struct CoreInitCommand: Command {
    static let project = OptionSpec.option(
        "project", valueName: "name", help: "The project's name (lowercase letters and digits).", default: "local")
    static let issuer = OptionSpec.option(
        "issuer", valueName: "url",
        help: "The ID-token issuer URL (where 'core serve' will listen); fixed at the first init.",
        type: .url(schemes: ["http", "https"]), defaultDescription: WaasService.defaultIssuer)

    let configuration = CommandConfiguration(
        name: "init",
        abstract: "Create the embedded core in the home folder and print the project's publishable key.",
        discussion: """
            Creates the home (mode 0700) with the core's database, its key-encryption key (0600), an
            ID-token signing key, a development OIDC issuer and the project. Running it again changes
            nothing and prints the same lines (saying on standard error that they already existed);
            another --project adds a project.
            """,
        options: CommonOptions.operatorOptions + [Self.project, Self.issuer])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        try CoreCommandSupport.requireEmbedded(arguments, "core init")
        let home = arguments.home(in: context)
        let result = try await CoreCommandSupport.run {
            try WaasService.initialize(
                home: home, project: arguments.value(Self.project) ?? "local", issuer: arguments.value(Self.issuer))
        }
        if !result.created {
            context.standardError.writeLine(
                "core in \(home.url.path) already existed; project '\(result.project.name)' unchanged")
        }
        context.standardOutput.writeLine("publishable_key: \(result.project.publishableKey)")
        context.standardOutput.writeLine("project_id: \(result.project.id)")
        context.standardOutput.writeLine("issuer: \(result.issuer)")
        context.standardOutput.writeLine("home: \(home.url.path)")
        return ExitCode.success.rawValue
    }
}
