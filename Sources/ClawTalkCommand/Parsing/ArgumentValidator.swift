/// Phase 4: checks what conversion cannot see, i.e. that every required argument is present.
///
/// A command's own `validate()` runs after this, on the typed command value.
public enum ArgumentValidator {
    /// Throws `missingArgument` for the first required positional or option without a value.
    public static func validate(_ parsed: ParsedArguments, specs: [OptionSpec]) throws(CLIError) {
        for spec in specs where !parsed.contains(spec.key) {
            switch spec.kind {
            case .positional(_, .required):
                throw .missingArgument(spec.errorLabel)
            case .option, .repeatingOption:
                if spec.isRequired { throw .missingArgument(spec.errorLabel) }
            case .flag, .positional:
                continue
            }
        }
    }
}
