import Jobs
import OMSCore

/// `walletops core attestation-root`: prints the home's core attestation root (PEM), the anchor
/// clients pin to trust its import replies (docs/import.md, "Environments and pins").
struct CoreAttestationRootCommand: Command {
    let configuration = CommandConfiguration(
        name: "attestation-root", abstract: "Print the PEM of the core's attestation root certificate.",
        discussion: """
            The development enclave's self-made P-384 root. A client importing keys into this core from
            elsewhere pins it: save the output and pass it as 'wallet import --attestation-root FILE'.
            """,
        options: CommonOptions.operatorOptions)

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        try CoreCommandSupport.requireEmbedded(arguments, "core attestation-root")
        let home = arguments.home(in: context)
        let pem = try await CoreCommandSupport.run {
            try await CoreCommandSupport.embeddedCore(home, tuning: context.tuning.coreStore).service.attestationRoot()
                .pemEncoded
        }
        context.standardOutput.write(pem.hasSuffix("\n") ? pem : pem + "\n")
        return ExitCode.success.rawValue
    }
}
