import Foundation
import HomeLayout
import Jobs
import KeyFormats
import OMSCore
import OMSProtocol
import WalletCrypto

/// `walletops wallet import`: a key from a file (or standard input) becomes a wallet of the signed-in
/// account, sealed with HPKE to a recipient key whose attestation was checked first (docs/import.md).
struct WalletImportCommand: Command {
    /// How the key file is written.
    enum Format: String, CaseIterable {
        case hex, base58, keystore
        case solanaJSON = "solana-json"
        case raw
    }

    static let type = OptionSpec.option(
        "type", short: "t", help: "The kind of wallet.", type: .choice(KeyType.choices), required: true)
    static let format = OptionSpec.option(
        "format", help: "How the key file is written.", type: .choice(Format.allCases.map(\.rawValue)),
        defaultDescription:
            "ethereum: keystore for a .json file, else hex; solana: solana-json for a .json file, else base58")
    static let keyFile = OptionSpec.option(
        "key-file", valueName: "file", help: "The file holding the key; - reads standard input.", required: true)
    static let passwordFile = OptionSpec.option(
        "password-file", valueName: "file", help: "A keystore's password, in a file (one trailing newline dropped).")
    static let passwordEnv = OptionSpec.option(
        "password-env", valueName: "var", help: "A keystore's password, in this environment variable.")
    static let reference = OptionSpec.option(
        "reference", valueName: "text", help: "Your reference for the wallet (at most 128 UTF-8 bytes).")
    static let attestationRoot = OptionSpec.option(
        "attestation-root", valueName: "file",
        help: "The core's attestation root (PEM) to pin.",
        defaultDescription: "<home>/attestation-root.pem")

    let configuration = CommandConfiguration(
        name: "import", abstract: "Import a private key as a wallet (attested, HPKE-sealed).",
        discussion: """
            Formats: hex (Ethereum, 64 hex digits, optional 0x), base58 (Solana seed or keypair),
            keystore (Ethereum keystore V3/V1 JSON, with --password-file or --password-env), solana-json
            (the Solana CLI's array of 64 numbers), raw (32 bytes, or 64 for a Solana keypair). Keys and
            passwords are never accepted on the command line.

            The key is checked here first (errors say what is wrong without showing it), then sealed to
            a one-time key of the core only after the core's attestation verifies against the pinned
            root: <home>/attestation-root.pem (the embedded core, or a core served from the same home),
            or --attestation-root FILE for another core ('walletops core attestation-root' prints it).
            An attestation that does not verify stops the import before any key material is sent
            (exit 1). Prints the wallet as 'wallet create' does (a table), then its id alone on the last
            line.
            """,
        options: CommonOptions.operatorOptions + [
            Self.type, Self.format, Self.keyFile, Self.passwordFile, Self.passwordEnv, Self.reference,
            Self.attestationRoot,
        ])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let type = arguments.choice(Self.type, as: KeyType.self) ?? .ethereum
        let path = arguments.value(Self.keyFile)!
        let format = try Self.format(arguments, type: type, path: path)
        let password = try Self.passwordSource(arguments, format: format, context: context)
        if let reference = arguments.value(Self.reference), reference.utf8.count > KeyParser.maximumReferenceBytes {
            throw CLIError.usage("--reference is longer than \(KeyParser.maximumReferenceBytes) UTF-8 bytes")
        }
        let rootPEM = try Self.rootPEM(arguments, home: home, context: context)
        let policy: AttestationPolicy
        do {
            policy = try AttestationPolicy.development(rootPEM: rootPEM.text)
        } catch {
            throw CLIError.dataError("\(rootPEM.source) is not a PEM certificate")
        }
        let key = try Self.readKey(path: path, type: type, format: format, password: password, context: context)
        let wallet = try await CoreCommandSupport.run {
            let (_, _, client) = try CoreConnection.signedIn(
                home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore)
            do {
                return try await client.importWallet(
                    privateKey: key.secret, networkFamily: NetworkFamily(type),
                    reference: arguments.value(Self.reference), verifier: AttestationVerifier(policy: policy))
            } catch let error as WaasClientError where error.code == .attestationVerificationFailed {
                throw CLIError(
                    .failure,
                    "the core's attestation did not verify against \(rootPEM.source) (\(error.message)); "
                        + "no key material was sent",
                    underlying: error)
            }
        }
        guard wallet.address.lowercased() == key.address.lowercased() else {
            throw CLIError(
                .failure, "the core imported \(wallet.id) at \(wallet.address), not the key's address \(key.address)")
        }
        // --format names the key's format here, so the wallet is printed as a table.
        context.standardOutput.write(WalletTable.render([wallet], as: .table))
        context.standardOutput.writeLine(wallet.id)
        return ExitCode.success.rawValue
    }

    /// `--format`, or the default for the type and file name; a format of the other chain is a usage error.
    static func format(_ arguments: ParsedArguments, type: KeyType, path: String) throws -> Format {
        let isJSON = path.lowercased().hasSuffix(".json")
        guard let given = arguments.choice(Self.format, as: Format.self) else {
            switch type {
            case .ethereum: return isJSON ? .keystore : .hex
            case .solana: return isJSON ? .solanaJSON : .base58
            }
        }
        let fits: Bool =
            switch given {
            case .hex, .keystore: type == .ethereum
            case .base58, .solanaJSON: type == .solana
            case .raw: true
            }
        guard fits else { throw CLIError.usage("--format \(given.rawValue) is not a format of \(type.rawValue) keys") }
        return given
    }

    /// Where a keystore's password comes from: exactly one of --password-file, --password-env.
    static func passwordSource(_ arguments: ParsedArguments, format: Format, context: Context) throws
        -> PasswordSource?
    {
        let file = arguments.value(Self.passwordFile)
        let variable = arguments.value(Self.passwordEnv)
        guard format == .keystore else {
            if file != nil || variable != nil {
                throw CLIError.usage("--password-file and --password-env are for --format keystore only")
            }
            return nil
        }
        switch (file, variable) {
        case (let file?, nil): return .file(context.fileURL(file).path)
        case (nil, let variable?): return .environment(variable)
        case (nil, nil): throw CLIError.usage("a keystore needs its password: give --password-file or --password-env")
        default: throw CLIError.usage("give one of --password-file and --password-env, not both")
        }
    }

    /// The PEM to pin and where it came from.
    static func rootPEM(_ arguments: ParsedArguments, home: WalletHome, context: Context) throws
        -> (text: String, source: String)
    {
        if let path = arguments.value(Self.attestationRoot) {
            return (try CoreCommandSupport.readFile(path, context, what: "attestation root", limit: 64 << 10), path)
        }
        let url = home.attestationRootURL
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CLIError(
                .failure,
                "no attestation root to pin: \(url.path) does not exist; give --attestation-root FILE "
                    + "(the output of 'walletops core attestation-root' on the core's home)")
        }
        return (try CoreCommandSupport.readFile(url.path, context, what: "attestation root", limit: 64 << 10), url.path)
    }

    /// Reads and validates the key; errors name the source and the problem, never the content.
    static func readKey(path: String, type: KeyType, format: Format, password: PasswordSource?, context: Context)
        throws -> ParsedKey
    {
        let reader = KeyFileReader(context: context)
        switch format {
        case .keystore:
            let source = KeyFileReader.sourceName(path)
            do {
                let keystore =
                    if path == "-" {
                        try EncryptedKeystore(json: Data(try readStandardInput(context, source: source)))
                    } else {
                        try EncryptedKeystore(contentsOf: context.fileURL(path).path)
                    }
                return try keystore.decrypt(password: try password!.password(for: path))
            } catch let error as KeyFormatError {
                throw KeyFileReader.cliError(error, source: source)
            }
        case .hex, .base58: return try reader.key(path: path, format: .text(type))
        case .raw: return try reader.key(path: path, format: .raw(type))
        case .solanaJSON: return try reader.key(path: path, format: .solanaKeypairJSON)
        }
    }

    /// A keystore from standard input (not secret itself: it is encrypted).
    private static func readStandardInput(_ context: Context, source: String) throws -> [UInt8] {
        do {
            return try context.standardInput.readAll(limit: EncryptedKeystore.maximumFileBytes)
        } catch is InputTooLarge {
            throw CLIError.dataError("\(source): larger than \(EncryptedKeystore.maximumFileBytes) bytes")
        }
    }
}
