import Jobs
import OMSProtocol

/// `walletops remote transfer`: a remote credential spends within its session, as an app's backend
/// would: PrepareEthereumTransaction, then Execute, signed with the key staged in the home.
struct RemoteTransferCommand: Command {
    static let credential = OptionSpec.option(
        "credential", valueName: "address", help: "The remote credential (staged with 'remote register').",
        required: true)
    static let session = OptionSpec.option("session", valueName: "id", help: "The session (ses_...).", required: true)
    static let to = OptionSpec.option("to", valueName: "address", help: "The receiver.", required: true)
    static let value = OptionSpec.option(
        "value", valueName: "amount", help: "Wei, or with --token the token's smallest unit.", required: true)
    static let token = OptionSpec.option(
        "token", valueName: "address", help: "An ERC-20 token contract: send the token instead of the native coin.")

    let configuration = CommandConfiguration(
        name: "transfer", abstract: "Send within a remote session (prepare, then execute).",
        discussion: """
            The wallet and network are the session's (GetSession). The core checks the receiver and the
            limits when preparing and again, atomically, when executing: past a limit the transfer is
            refused with UsageLimitExceeded (exit 1) and nothing is spent. Prints the status and the
            transaction hash, then the transaction id alone on the last line.
            """,
        options: CommonOptions.operatorOptions + [Self.credential, Self.session, Self.to, Self.value, Self.token])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let remote = try RemoteCredentialFile.load(home: home, credentialId: arguments.value(Self.credential)!)
        let sessionId = arguments.value(Self.session)!
        let (to, amount) = (arguments.value(Self.to)!, arguments.value(Self.value)!)
        let result = try await CoreCommandSupport.run {
            let client = try remote.client(home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore)
            let session = try await client.call(
                .getSession, GetSessionRequest(sessionId: sessionId), as: GetSessionResponse.self
            ).session
            let request: PrepareEthereumTransactionRequest =
                if let token = arguments.value(Self.token) {
                    .erc20Transfer(
                        walletId: session.walletId, network: session.chainId, sessionId: sessionId, token: token,
                        to: to, amount: amount)
                } else {
                    .nativeTransfer(
                        walletId: session.walletId, network: session.chainId, sessionId: sessionId, to: to,
                        value: amount)
                }
            let prepared = try await client.call(
                .prepareEthereumTransaction, request, as: PrepareEthereumTransactionResponse.self)
            return try await client.call(
                .execute, ExecuteRequest(transactionId: prepared.transactionId), as: TransactionStatusResponse.self)
        }
        context.standardOutput.writeLine("status: \(result.status)")
        context.standardOutput.writeLine("tx_hash: \(result.txHash ?? "")")
        context.standardOutput.writeLine(result.transactionId)
        return ExitCode.success.rawValue
    }
}
