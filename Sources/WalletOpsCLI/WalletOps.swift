import Jobs

/// The `walletops` command line.
///
/// The command tree is ``root``; `main` parses the arguments, runs the selected command and
/// returns the exit code (see ``ExitCode``). Tests call ``main(_:context:)`` with a captured
/// ``Context``.
public enum WalletOps {
    /// The version printed by `walletops --version`.
    public static let version = "0.1.0"

    /// The actions playbooks may use: the jobs' registry (``ActionRegistry/jobs``). Every run command and
    /// `validate` read it.
    public static var actions: ActionRegistry { .jobs }

    /// The top-level commands, in help order. A new command group is one more line here.
    static var commands: [any Command] {
        [
            CommandGroup(
                name: "core", abstract: "Create, configure and serve the OMS wallet core of a home folder.",
                subcommands: [
                    CoreInitCommand(), CoreTrustIssuerCommand(), CoreRotateSigningKeyCommand(), CoreServeCommand(),
                    CoreAttestationRootCommand(),
                ]),
            LoginCommand(),
            LogoutCommand(),
            CommandGroup(
                name: "wallet", abstract: "List, create and choose the signed-in account's wallets.",
                subcommands: [WalletListCommand(), WalletCreateCommand(), WalletUseCommand(), WalletImportCommand()]),
            CommandGroup(
                name: "access",
                abstract: "List and revoke who can act on a wallet (direct credentials, remote sessions).",
                subcommands: [AccessListCommand(), AccessRevokeCommand()]),
            CommandGroup(
                name: "remote",
                abstract: "Stage remote credentials as an app's backend would: register, authorize, spend, inspect.",
                subcommands: [
                    RemoteRegisterCommand(), RemoteAuthorizeCommand(), RemoteTransferCommand(), RemoteSessionsCommand(),
                    RemoteUsageCommand(),
                ]),
            CommandGroup(
                name: "token", abstract: "Issue and verify wallet ID tokens (ES256 JWTs).",
                subcommands: [TokenIssueCommand(), TokenVerifyCommand()]),
            JWKSCommand(),
            CommandGroup(
                name: "crypto", abstract: "Offline key utilities (nothing leaves the machine).",
                subcommands: [CryptoAddressCommand()]),
            VersionCommand(),
            CompletionCommand(),
            // Playbook runs (docs/playbooks.md "Running").
            RunCommand(), ValidateCommand(), PlanCommand(), RunsCommand(), StatusCommand(), FailuresCommand(),
            RetryCommand(), PruneCommand(), DueCommand(), WorkerCommand(),
        ]
    }

    /// The root of the command tree.
    public static var root: any Command {
        CommandGroup(
            name: "walletops",
            abstract: "Operate an OMS wallet core and run batch playbooks against it.",
            discussion: """
                Exit codes: 0 ok, 1 failure (also: not signed in, session expired, refused by the
                core), 2 aborted, 64 usage error, 65 bad input data, 70 internal error, 74 I/O error,
                75 temporary failure (e.g. a lock is held, the core is unreachable).
                """,
            subcommands: commands)
    }

    /// Runs the command line of this process and returns the exit code. The tuning switches of
    /// `WALLETOPS_TUNING_OFF` (``TuningSwitches``) are read here once; the primitives' process-wide ones are
    /// set before any work.
    public static func main(_ arguments: [String]) async -> Int32 {
        await main(arguments, context: .process(), appliesProcessWideTuning: true)
    }

    /// Runs `arguments` (without the program name) in `context` and returns the exit code. The tuning
    /// switches of `context.environment` are handed to the commands (``Context/tuning``); the process-wide
    /// ones are left as they are, as several in-process callers may share the process.
    public static func main(_ arguments: [String], context: Context) async -> Int32 {
        await main(arguments, context: context, appliesProcessWideTuning: false)
    }

    /// Parses the tuning switches (an unknown name is a usage error, exit 64), then runs the command line.
    static func main(_ arguments: [String], context: Context, appliesProcessWideTuning: Bool) async -> Int32 {
        var context = context
        do {
            context.tuning = try TuningSwitches(environment: context.environment)
        } catch {
            let path = CommandPath(commands: [root])
            context.standardError.write(HelpFormatter.usageError(error.message, path: path))
            return ExitCode.usage.rawValue
        }
        if appliesProcessWideTuning { context.tuning.applyProcessWide() }
        return await CommandLineTool(root: root, version: version).run(arguments, context: context)
    }
}
