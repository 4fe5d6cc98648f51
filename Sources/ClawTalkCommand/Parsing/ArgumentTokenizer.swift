/// Phase 1: splits raw arguments into tokens without knowing any command's options.
///
/// Rules (after swift-argument-parser's `SplitArguments`):
/// - `--name=value` is one long token with an attached value, `--name` one without;
/// - `-vq` is packed: one short token per letter, all with the same position;
/// - `-`, and a dash followed by a digit or a dot (`-5`, `-0.5`), are values, so negative numbers work;
/// - `--` ends options: it becomes a terminator and everything after it a value.
public enum ArgumentTokenizer {
    /// Tokenises `arguments` (the command line without the program name).
    public static func tokenize(_ arguments: [String]) -> [ArgumentToken] {
        var tokens: [ArgumentToken] = []
        var afterTerminator = false
        for (position, argument) in arguments.enumerated() {
            if afterTerminator {
                tokens.append(ArgumentToken(.value(argument), position: position))
                continue
            }
            if argument == "--" {
                afterTerminator = true
                tokens.append(ArgumentToken(.terminator, position: position))
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                if let equals = body.firstIndex(of: "=") {
                    let name = String(body[..<equals])
                    let value = String(body[body.index(after: equals)...])
                    tokens.append(ArgumentToken(.long(name, value: value), position: position))
                } else {
                    tokens.append(ArgumentToken(.long(String(body), value: nil), position: position))
                }
            } else if argument.hasPrefix("-"), let first = argument.dropFirst().first,
                !first.isNumber, first != "."
            {
                for letter in argument.dropFirst() {
                    tokens.append(ArgumentToken(.short(letter), position: position))
                }
            } else {
                tokens.append(ArgumentToken(.value(argument), position: position))
            }
        }
        return tokens
    }
}
