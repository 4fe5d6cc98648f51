/// Resolves the command line to a command, parses its arguments, runs it and maps the outcome
/// to an exit code, writing help and errors the way swift-argument-parser does.
///
/// Resolution from the root: a leading plain value names a subcommand (`help` at the root is the
/// help command); an unknown name is a usage error with a suggestion. With no subcommand named,
/// the command's `defaultSubcommand` takes every argument, except a help request for the
/// command itself. Output contract:
/// - help: stdout, exit 0;
/// - usage error: stderr `Error: …`, `Usage: …`, `  See '… --help' for more information.`, exit 64;
/// - runtime error: stderr `Error: …`, exit 1 (69 for `CLIError.unavailable`); an error a
///   command throws that is ``CLIErrorConvertible`` (the node's `NodeServiceError` and
///   `PairingError`) is reported as its ``CLIErrorConvertible/cliError``.
public enum CommandDispatcher {
    /// Runs `arguments` (including the program name at index 0) against the tree under `root`.
    public static func execute(
        root: any Command.Type, arguments: [String], io: CommandIO, environment: [String: String]
    ) async -> Int32 {
        let tokens = ArgumentTokenizer.tokenize(Array(arguments.dropFirst()))
        var path: [any Command.Type] = [root]
        do {
            let remaining = try resolve(tokens, path: &path)
            let command = path[path.count - 1]
            if remaining.prefix(while: { $0.kind != .terminator }).contains(where: \.isHelpRequest) {
                io.writeOutput(HelpRenderer.help(for: path))
                return ExitCode.success.rawValue
            }
            let parsed = try ParsedArguments(tokens: Array(remaining), specs: command.options)
            let instance = try command.init(parsed: parsed)
            try instance.validate()
            let context = CommandContext(commandPath: path, io: io, environment: environment)
            do {
                return try await instance.run(context: context)
            } catch let error as any CLIErrorConvertible {
                throw error.cliError
            }
        } catch let error as CLIError where error.isUsageError {
            io.writeError(
                "Error: \(error)\nUsage: \(HelpRenderer.usage(for: path))\n"
                    + HelpRenderer.moreInformationHint(for: path) + "\n")
            return error.exitCode.rawValue
        } catch let error as CLIError {
            io.writeError("Error: \(error)\n")
            return error.exitCode.rawValue
        } catch {
            io.writeError("Error: \(error)\n")
            return ExitCode.failure.rawValue
        }
    }

    /// Walks subcommand names, extending `path`; returns the tokens left for the final command.
    static func resolve(
        _ tokens: [ArgumentToken], path: inout [any Command.Type]
    ) throws(CLIError) -> ArraySlice<ArgumentToken> {
        var remaining = tokens[...]
        while let command = path.last, !command.subcommands.isEmpty {
            guard let first = remaining.first else {
                if let fallback = command.defaultSubcommand { path.append(fallback) }
                break
            }
            if case .value(let name) = first.kind {
                if path.count == 1, name == HelpCommand.name {
                    path.append(HelpCommand.self)
                } else if let sub = command.subcommands.first(where: { $0.name == name }) {
                    path.append(sub)
                } else {
                    let names = command.subcommands.map { $0.name }
                    throw .unknownSubcommand(name, suggestion: NameSuggester.suggestion(for: name, among: names))
                }
                remaining = remaining.dropFirst()
                continue
            }
            // An option or `--` before any subcommand name: help for this command, or arguments
            // for its default subcommand.
            if first.isHelpRequest {
                break
            }
            if let fallback = command.defaultSubcommand { path.append(fallback) }
            break
        }
        return remaining
    }
}
