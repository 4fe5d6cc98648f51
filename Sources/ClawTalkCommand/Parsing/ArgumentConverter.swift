/// Phase 3: converts matched text to typed values and enforces allowed values.
public enum ArgumentConverter {
    /// Converts every occurrence in `matched` according to its spec in `specs`.
    public static func convert(_ matched: MatchedArguments, specs: [OptionSpec]) throws(CLIError) -> ParsedArguments {
        var values: [String: [ArgumentValue]] = [:]
        for spec in specs {
            guard let occurrences = matched.occurrences[spec.key] else { continue }
            var converted: [ArgumentValue] = []
            for occurrence in occurrences {
                guard let text = occurrence.text else {
                    converted.append(.flag)
                    continue
                }
                converted.append(try convert(text, spec: spec, position: occurrence.position))
            }
            values[spec.key] = converted
        }
        return ParsedArguments(values)
    }

    /// Converts one value of `spec`, given at `position`.
    public static func convert(_ text: String, spec: OptionSpec, position: Int) throws(CLIError) -> ArgumentValue {
        if !spec.allowedValues.isEmpty, !spec.allowedValues.contains(text) {
            let reason = "expected one of \(spec.allowedValues.joined(separator: ", "))"
            throw .invalidValue(option: spec.errorLabel, value: text, reason: reason, position: position)
        }
        switch spec.valueType {
        case .string:
            return .string(text)
        case .int:
            guard let number = Int(text) else {
                throw .invalidValue(
                    option: spec.errorLabel, value: text, reason: "expected an integer", position: position)
            }
            return .int(number)
        case .double:
            guard let number = Double(text), number.isFinite else {
                throw .invalidValue(
                    option: spec.errorLabel, value: text, reason: "expected a number", position: position)
            }
            return .double(number)
        }
    }
}
