/// Renders the help screen and the usage line of a command, from its description.
enum HelpFormatter {
    /// The column where help text starts.
    static let labelWidth = 28
    /// The width help rows are wrapped to.
    static let width = 80

    /// `walletops crypto address --type <type> --key-file <file> [<options>]`.
    static func usage(_ path: CommandPath) -> String {
        let configuration = path.leaf.configuration
        var parts = [path.displayName]
        if !configuration.subcommands.isEmpty {
            parts.append("<subcommand>")
            return parts.joined(separator: " ")
        }
        for option in configuration.options where option.isRequired {
            parts.append(option.isRepeating ? "\(option.synopsis) ..." : option.synopsis)
        }
        if configuration.options.contains(where: { !$0.isRequired }) { parts.append("[<options>]") }
        parts += configuration.arguments.map(\.synopsis)
        return parts.joined(separator: " ")
    }

    /// The full help screen, in the layout of swift-argument-parser.
    static func help(_ path: CommandPath) -> String {
        let configuration = path.leaf.configuration
        var out = "OVERVIEW: \(configuration.abstract)\n\n"
        if !configuration.discussion.isEmpty { out += configuration.discussion + "\n\n" }
        out += "USAGE: \(usage(path))\n\n"
        if !configuration.arguments.isEmpty {
            out += "ARGUMENTS:\n"
            for argument in configuration.arguments { out += row("<\(argument.name)>", argument.help) }
            out += "\n"
        }
        out += "OPTIONS:\n"
        for option in configuration.options { out += row(option.helpLabel, option.helpText) }
        if path.isRoot { out += row("--version", "Show the version.") }
        out += row("-h, --help", "Show help information.")
        if !configuration.subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            for sub in configuration.subcommands { out += row(sub.configuration.name, sub.configuration.abstract) }
            if path.isRoot { out += row("help", "Show subcommand help information.") }
            let helpWords = ([path.names[0], "help"] + path.names.dropFirst() + ["<subcommand>"])
            out += "\n  See '\(helpWords.joined(separator: " "))' for detailed help.\n"
        }
        return out
    }

    /// `Error: <message>`, the usage line and where to find help: what a usage error prints.
    static func usageError(_ message: String, path: CommandPath) -> String {
        "Error: \(message)\nUsage: \(usage(path))\nSee '\(path.displayName) --help' for more.\n"
    }

    /// One two-column row, the text wrapped at ``width``; a long label puts the text on the next line.
    private static func row(_ label: String, _ text: String) -> String {
        let left = "  " + label
        let indent = String(repeating: " ", count: labelWidth)
        let lines = wrap(text, width: width - labelWidth)
        var out: String
        if left.count + 2 <= labelWidth {
            out = left + String(repeating: " ", count: labelWidth - left.count) + lines[0] + "\n"
        } else {
            out = left + "\n" + indent + lines[0] + "\n"
        }
        for line in lines.dropFirst() { out += indent + line + "\n" }
        return out
    }

    /// The words of `text` in lines of at most `width` characters (a longer word gets its own line).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        lines.append(line)
        return lines
    }
}
