import KeyFormats

/// `walletops crypto address`: prints the address of a private key read from a file or stdin.
struct CryptoAddressCommand: Command {
    static let type = OptionSpec.option(
        "type", short: "t", help: "The kind of key.", type: .choice(KeyType.choices), required: true)
    static let keyFile = OptionSpec.option(
        "key-file", short: "k", valueName: "file",
        help: "The file holding the private key; - reads it from standard input.", required: true)

    let configuration = CommandConfiguration(
        name: "address",
        abstract: "Print the address of a private key read from a file or standard input.",
        discussion: """
            Ethereum key files hold 64 hex digits (optionally after 0x) or 32 raw bytes; the address is
            printed with its EIP-55 checksum. Solana key files hold base58 text of a 32-byte seed or a
            64-byte keypair, the Solana CLI JSON array of 64 numbers, or 32/64 raw bytes; the address is
            the base58 public key. Surrounding whitespace is ignored.

            Keys are never accepted as command-line values: arguments are saved in shell history and are
            visible to other users through ps.
            """,
        options: [Self.type, Self.keyFile])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let path = arguments.value(Self.keyFile)!  // required
        let type = arguments.choice(Self.type, as: KeyType.self)!  // required
        // ParsedKey's address: EIP-55 for Ethereum, base58 of the public key for Solana.
        context.standardOutput.writeLine(try KeyFileReader(context: context).key(path: path, type: type).address)
        return ExitCode.success.rawValue
    }
}
