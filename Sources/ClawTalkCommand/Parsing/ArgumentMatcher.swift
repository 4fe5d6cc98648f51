/// Phase 2: assigns tokens to a command's specs.
///
/// Named options take their value from `=value` or from the next token when that token is a
/// plain value (never from beyond `--`). Leftover values fill the positional specs in order; a
/// variadic positional takes the rest. Help tokens are handled before this phase.
public enum ArgumentMatcher {
    /// Matches `tokens` against `specs`, throwing the first usage error with its token position.
    public static func match(_ tokens: [ArgumentToken], specs: [OptionSpec]) throws(CLIError) -> MatchedArguments {
        var matched = MatchedArguments()
        var positionals: [(text: String, position: Int)] = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            let spec: OptionSpec
            var attached: String?
            switch token.kind {
            case .terminator:
                continue
            case .value(let text):
                positionals.append((text, token.position))
                continue
            case .long(let name, let value):
                guard let found = specs.first(where: { $0.long == name && !$0.isPositional }) else {
                    throw .unknownOption(token.display, position: token.position)
                }
                spec = found
                attached = value
            case .short(let letter):
                guard let found = specs.first(where: { $0.short == letter && !$0.isPositional }) else {
                    throw .unknownOption(token.display, position: token.position)
                }
                spec = found
            }
            guard spec.takesValue else {
                if let attached {
                    throw .unexpectedValue(option: token.display, value: attached, position: token.position)
                }
                matched.append(.init(nil, position: token.position), for: spec.key)
                continue
            }
            if let attached {
                matched.append(.init(attached, position: token.position), for: spec.key)
            } else if index < tokens.count, case .value(let text) = tokens[index].kind {
                matched.append(.init(text, position: tokens[index].position), for: spec.key)
                index += 1
            } else {
                throw .missingValue(option: spec.errorLabel, position: token.position)
            }
        }
        try assign(positionals, to: specs.filter(\.isPositional), into: &matched)
        return matched
    }

    /// Distributes positional values over the positional specs, in declaration order.
    private static func assign(
        _ values: [(text: String, position: Int)], to specs: [OptionSpec], into matched: inout MatchedArguments
    ) throws(CLIError) {
        var remaining = values[...]
        for spec in specs {
            guard case .positional(_, let arity) = spec.kind else { continue }
            switch arity {
            case .required, .optional:
                if let value = remaining.popFirst() {
                    matched.append(.init(value.text, position: value.position), for: spec.key)
                }
            case .variadic:
                while let value = remaining.popFirst() {
                    matched.append(.init(value.text, position: value.position), for: spec.key)
                }
            }
        }
        if let extra = remaining.first {
            throw .unexpectedArgument(extra.text, position: extra.position)
        }
    }
}
