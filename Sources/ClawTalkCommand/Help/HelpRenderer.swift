/// Renders help and usage in swift-argument-parser's layout.
///
/// ```
/// OVERVIEW: <abstract>
///
/// <discussion>
///
/// USAGE: clawtalk say [--local] [--file <path>] [<text>]
///
/// ARGUMENTS:
///   <text>                  The text to speak.
///
/// OPTIONS:
///   -h, --help              Show help information.
/// ```
/// Labels are indented 2 and padded to column 26; a longer label puts its text on the next
/// line at column 26. Text wraps at 80 columns so the output does not depend on the terminal.
public enum HelpRenderer {
    /// Indent of section labels.
    public static let labelIndent = 2
    /// Column at which help text starts.
    public static let labelColumn = 26
    /// Width help text wraps to.
    public static let width = 80
    /// Above this many options the usage line shows `[<options>]`, as swift-argument-parser does.
    public static let maximumUsageOptions = 12

    /// The implicit `-h, --help` entry every command lists last.
    public static let helpSpec = OptionSpec.flag("help", short: "h", help: "Show help information.")

    /// The full help for the last command of `path`, ending with a newline.
    public static func help(for path: [any Command.Type]) -> String {
        guard let command = path.last else { return "" }
        var overview = command.abstract
        if !command.discussion.isEmpty {
            if !overview.isEmpty { overview += "\n" }
            overview += "\n" + command.discussion
        }
        var text = ""
        if !overview.isEmpty {
            text += TextWrapper.wrap("OVERVIEW: \(overview)", width: width) + "\n\n"
        }
        text += "USAGE: \(usage(for: path))\n\n"
        let positional = command.options.filter(\.isPositional)
        let named = command.options.filter { !$0.isPositional } + [helpSpec]
        var sections: [String] = []
        if !positional.isEmpty {
            sections.append(section("ARGUMENTS", positional.map { ($0.helpLabel, $0.helpDescription) }))
        }
        sections.append(section("OPTIONS", named.map { ($0.helpLabel, $0.helpDescription) }))
        if !command.subcommands.isEmpty {
            let rows = command.subcommands.map { sub in
                let isDefault = command.defaultSubcommand.map { ObjectIdentifier($0) == ObjectIdentifier(sub) } ?? false
                return (sub.name + (isDefault ? " (default)" : ""), sub.abstract)
            }
            sections.append(section("SUBCOMMANDS", rows))
        }
        text += sections.joined(separator: "\n")
        if !command.subcommands.isEmpty {
            var names = path.map { $0.name }
            names.insert("help", at: 1)
            text += "\n  See '\(names.joined(separator: " ")) <subcommand>' for detailed help."
        }
        return text + "\n"
    }

    /// The usage line of the last command of `path`, without the `USAGE: ` prefix.
    public static func usage(for path: [any Command.Type]) -> String {
        guard let command = path.last else { return "" }
        var parts = [path.map { $0.name }.joined(separator: " ")]
        let named = command.options.filter { !$0.isPositional }
        let positional = command.options.filter(\.isPositional)
        if named.count > maximumUsageOptions {
            parts.append("[<options>]")
            parts += named.filter(\.isRequired).map(\.usageFragment)
        } else {
            parts += named.map(\.usageFragment)
        }
        parts += positional.map(\.usageFragment)
        if !command.subcommands.isEmpty {
            parts.append("<subcommand>")
        }
        return parts.joined(separator: " ")
    }

    /// The hint that closes a usage error: `  See 'clawtalk say --help' for more information.`
    public static func moreInformationHint(for path: [any Command.Type]) -> String {
        "  See '\(path.map { $0.name }.joined(separator: " ")) --help' for more information."
    }

    /// A titled section, each row `(label, text)` rendered by `row(label:text:)`.
    private static func section(_ title: String, _ rows: [(String, String)]) -> String {
        "\(title):\n" + rows.map { row(label: $0.0, text: $0.1) }.joined()
    }

    /// One labelled row: text at column 26, or on the next line when the label reaches it.
    public static func row(label: String, text: String) -> String {
        let paddedLabel = String(repeating: " ", count: labelIndent) + label
        guard !text.isEmpty else { return paddedLabel + "\n" }
        let wrapped = TextWrapper.wrap(text, width: width, indent: labelColumn)
        if paddedLabel.count < labelColumn {
            return paddedLabel + wrapped.dropFirst(paddedLabel.count) + "\n"
        }
        return paddedLabel + "\n" + wrapped + "\n"
    }
}
