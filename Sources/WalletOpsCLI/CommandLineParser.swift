/// Parses a command line against a tree of ``CommandConfiguration``s, in the manner of
/// swift-argument-parser.
///
/// Accepted forms: subcommand words first (`crypto address`), then options and positional
/// arguments in any order: `--opt value`, `--opt=value`, `-o value`, `-o=value`, `-ovalue`,
/// combined short flags (`-vq`), repeated options (`--var a=1 --var b=2`), `--` ending options,
/// `-` as a positional value (standard input). `-h`/`--help` anywhere before `--` asks for help;
/// `help <subcommand...>` and `--version` are understood at the root.
///
/// Every unknown option of the command line is reported at once, each with a "did you mean"
/// suggestion when one is close. A value shaped like a private key is refused without being
/// echoed (``KeyMaterialGuard``).
struct CommandLineParser {
    let root: any Command

    func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var commands = [root]
        var index = 0
        while index < arguments.count {
            let configuration = commands[commands.count - 1].configuration
            guard !configuration.subcommands.isEmpty else { break }
            let path = CommandPath(commands: commands)
            let token = arguments[index]
            if token == "-h" || token == "--help" { return .help(path) }
            if path.isRoot && token == "--version" { return .version }
            if path.isRoot && token == "help" { return try helpTarget(Array(arguments[(index + 1)...])) }
            if token.hasPrefix("-") && token != "-" && token != "--" {
                let parts = token.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.contains(where: { KeyMaterialGuard.looksLikePrivateKey(String($0.drop { $0 == "-" })) }) {
                    throw UsageError(message: KeyMaterialGuard.refusal(for: "an argument"), path: path)
                }
                let name = String(parts[0])
                var known = ["--help"]
                if path.isRoot { known.append("--version") }
                throw UsageError(message: Self.unknownOptionsMessage([name], known: known), path: path)
            }
            guard let next = configuration.subcommand(token) else {
                throw unknownSubcommand(token, at: path)
            }
            commands.append(next)
            index += 1
        }
        let path = CommandPath(commands: commands)
        let subcommands = path.leaf.configuration.subcommands
        if !subcommands.isEmpty {
            var names = subcommands.map(\.configuration.name)
            if path.isRoot { names.append("help") }
            throw UsageError(
                message: "missing subcommand; expected one of: \(names.joined(separator: ", "))", path: path)
        }
        let rest = arguments[index...]
        if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) {
            return .help(path)
        }
        return .run(path, try parseCommand(Array(rest), path: path))
    }

    /// `help a b c`: the command the words select.
    private func helpTarget(_ words: [String]) throws(UsageError) -> Invocation {
        var commands = [root]
        for word in words {
            if word.hasPrefix("-") { break }
            let path = CommandPath(commands: commands)
            guard let next = path.leaf.configuration.subcommand(word) else {
                throw unknownSubcommand(word, at: path)
            }
            commands.append(next)
        }
        return .help(CommandPath(commands: commands))
    }

    private func unknownSubcommand(_ word: String, at path: CommandPath) -> UsageError {
        if KeyMaterialGuard.looksLikePrivateKey(word) {
            return UsageError(message: KeyMaterialGuard.refusal(for: "an argument"), path: path)
        }
        var names = path.leaf.configuration.subcommands.map(\.configuration.name)
        if path.isRoot { names.append("help") }
        var message = "unknown subcommand '\(word)'"
        if names.isEmpty {
            message += "; '\(path.displayName)' has no subcommands"
        } else if let guess = Suggestion.closest(to: word, among: names) {
            message += "; did you mean '\(guess)'?"
        } else {
            message += "; expected one of: \(names.joined(separator: ", "))"
        }
        return UsageError(message: message, path: path)
    }

    /// The options and arguments of the leaf command.
    private func parseCommand(_ tokens: [String], path: CommandPath) throws(UsageError) -> ParsedArguments {
        let configuration = path.leaf.configuration
        var parsed = ParsedArguments(commandPath: path.names)
        var positionals: [String] = []
        var unknown: [String] = []
        var index = 0
        var optionsEnded = false

        func fail(_ message: String) -> UsageError { UsageError(message: message, path: path) }

        /// Records `spec` given as `label`, taking its value from `inline` or the next token.
        func take(_ spec: OptionSpec, label: String, inline: String?) throws(UsageError) {
            if spec.kind == .flag {
                guard inline == nil else { throw fail("flag '\(label)' does not take a value") }
                parsed.flagCounts[spec.long, default: 0] += 1
                parsed.givenOptions.insert(spec.long)
                return
            }
            let value: String
            if let inline {
                value = inline
            } else if index < tokens.count, Self.canBeValue(tokens[index]) {
                value = tokens[index]
                index += 1
            } else {
                throw fail("missing value for option '\(label) <\(spec.valueName)>'")
            }
            if !spec.acceptsKeyLikeValues && KeyMaterialGuard.looksLikePrivateKey(value) {
                throw fail(KeyMaterialGuard.refusal(for: "the value of '\(label)'"))
            }
            // `--claim n=<key>`, `--var k=<key>`: the part after `=` is checked too, and named without its value.
            if !spec.acceptsKeyLikeValues, case .keyValue = spec.valueType, let equals = value.firstIndex(of: "="),
                KeyMaterialGuard.looksLikePrivateKey(String(value[value.index(after: equals)...]))
            {
                throw fail(KeyMaterialGuard.refusal(for: "the value of '\(label) \(value[..<equals])=...'"))
            }
            if let problem = spec.valueType.problem(with: value) {
                throw fail("invalid value '\(value)' for '\(label) <\(spec.valueName)>': \(problem)")
            }
            if !spec.isRepeating && parsed.givenOptions.contains(spec.long) {
                throw fail("option '--\(spec.long)' given more than once")
            }
            parsed.optionValues[spec.long, default: []].append(value)
            parsed.givenOptions.insert(spec.long)
        }

        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if optionsEnded || Self.canBeValue(token) {
                positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            if token.hasPrefix("--") {
                let body = token.dropFirst(2)
                let parts = body.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0])
                let inline = parts.count > 1 ? String(parts[1]) : nil
                if let spec = configuration.option(long: name) {
                    try take(spec, label: "--\(name)", inline: inline)
                } else if KeyMaterialGuard.looksLikePrivateKey(name)
                    || inline.map(KeyMaterialGuard.looksLikePrivateKey) == true
                {
                    throw fail(KeyMaterialGuard.refusal(for: "an argument"))
                } else {
                    unknown.append("--\(name)")
                }
                continue
            }
            if KeyMaterialGuard.looksLikePrivateKey(String(token.dropFirst())) {
                throw fail(KeyMaterialGuard.refusal(for: "an argument"))
            }
            // One or more short names: flags, the last of which may take a value.
            let letters = Array(token.dropFirst())
            var position = 0
            while position < letters.count {
                let letter = letters[position]
                position += 1
                guard let spec = configuration.option(short: letter) else {
                    unknown.append("-\(letter)")
                    continue
                }
                var inline: String?
                if spec.kind == .value && position < letters.count {
                    var rest = String(letters[position...])
                    if rest.hasPrefix("=") { rest.removeFirst() }
                    inline = rest
                    position = letters.count
                }
                try take(spec, label: "-\(letter)", inline: inline)
            }
        }

        // A key is refused before anything else is reported (`--key <key>` is an unknown option
        // followed by a key-shaped word: the user must learn why keys are never arguments).
        if !configuration.arguments.contains(where: \.acceptsKeyLikeValues),
            positionals.contains(where: KeyMaterialGuard.looksLikePrivateKey)
        {
            throw fail(KeyMaterialGuard.refusal(for: "an argument"))
        }
        if !unknown.isEmpty {
            let known = ["--help"] + configuration.options.map { "--\($0.long)" }
            throw fail(Self.unknownOptionsMessage(unknown, known: known))
        }

        // Positional values, in declaration order.
        var remaining = positionals[...]
        for argument in configuration.arguments {
            if remaining.isEmpty {
                if !argument.isOptional { throw fail("missing expected argument '<\(argument.name)>'") }
                continue
            }
            let taken = argument.isRepeating ? Array(remaining) : [remaining.first!]
            remaining = remaining.dropFirst(taken.count)
            for value in taken {
                if !argument.acceptsKeyLikeValues && KeyMaterialGuard.looksLikePrivateKey(value) {
                    throw fail(KeyMaterialGuard.refusal(for: "argument '<\(argument.name)>'"))
                }
                if let problem = argument.valueType.problem(with: value) {
                    throw fail("invalid value '\(value)' for '<\(argument.name)>': \(problem)")
                }
            }
            parsed.argumentValues[argument.name] = taken
        }
        if let extra = remaining.first {
            if KeyMaterialGuard.looksLikePrivateKey(extra) { throw fail(KeyMaterialGuard.refusal(for: "an argument")) }
            throw fail("unexpected argument '\(extra)'")
        }

        for spec in configuration.options where spec.kind == .value && !parsed.givenOptions.contains(spec.long) {
            if spec.isRequired { throw fail("missing required option '\(spec.synopsis)'") }
            if let defaultValue = spec.defaultValue { parsed.optionValues[spec.long] = [defaultValue] }
        }
        return parsed
    }

    /// Whether `token` may be the value of the option before it: anything but another option.
    /// `-` (standard input) and negative numbers are values.
    static func canBeValue(_ token: String) -> Bool {
        token == "-" || !token.hasPrefix("-") || isNegativeNumber(token)
    }

    /// `-5`, `-0.25`: a value, not a cluster of short options.
    static func isNegativeNumber(_ token: String) -> Bool {
        let body = token.utf8.dropFirst()
        guard token.hasPrefix("-"), let first = body.first, (0x30...0x39).contains(first) else { return false }
        var dots = 0
        for byte in body {
            if byte == 0x2E {
                dots += 1
            } else if !(0x30...0x39).contains(byte) {
                return false
            }
        }
        return dots <= 1
    }

    /// `unknown option '--tpye'; did you mean '--type'?`, or all unknown options in one message.
    static func unknownOptionsMessage(_ unknown: [String], known: [String]) -> String {
        var seen: Set<String> = []
        let knownLongs = known.map { String($0.dropFirst(2)) }
        let items = unknown.filter { seen.insert($0).inserted }.map { name -> (name: String, guess: String?) in
            guard name.hasPrefix("--") else { return (name, nil) }  // no guessing from one letter
            return (name, Suggestion.closest(to: String(name.dropFirst(2)), among: knownLongs).map { "--" + $0 })
        }
        if items.count == 1 {
            return "unknown option '\(items[0].name)'" + (items[0].guess.map { "; did you mean '\($0)'?" } ?? "")
        }
        let described = items.map { item in "'\(item.name)'" + (item.guess.map { " (did you mean '\($0)'?)" } ?? "") }
        return "unknown options \(described.joined(separator: ", "))"
    }
}
