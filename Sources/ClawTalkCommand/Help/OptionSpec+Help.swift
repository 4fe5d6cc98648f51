extension OptionSpec {
    /// The label in help's ARGUMENTS or OPTIONS section: `-f, --file <path>`, `<text>`, `<values> ...`.
    public var helpLabel: String {
        switch kind {
        case .flag:
            return names.joined(separator: ", ")
        case .option(let valueName), .repeatingOption(let valueName):
            return names.joined(separator: ", ") + " <\(valueName)>"
        case .positional(let valueName, let arity):
            return arity == .variadic ? "<\(valueName)> ..." : "<\(valueName)>"
        }
    }

    /// The fragment in the usage line: `[--local]`, `[--file <path>]`, `<code>`, `[<text>]`.
    public var usageFragment: String {
        switch kind {
        case .flag:
            return "[\(preferredName)]"
        case .option(let valueName):
            let core = "\(preferredName) <\(valueName)>"
            return isRequired ? core : "[\(core)]"
        case .repeatingOption(let valueName):
            let core = "\(preferredName) <\(valueName)> ..."
            return isRequired ? core : "[\(core)]"
        case .positional(let valueName, .required):
            return "<\(valueName)>"
        case .positional(let valueName, .optional):
            return "[<\(valueName)>]"
        case .positional(let valueName, .variadic):
            return "[<\(valueName)> ...]"
        }
    }

    /// How errors name the argument: `--file <path>`, `--local`, `<setup-code>`.
    public var errorLabel: String {
        switch kind {
        case .flag: preferredName
        case .option(let valueName), .repeatingOption(let valueName): "\(preferredName) <\(valueName)>"
        case .positional(let valueName, _): "<\(valueName)>"
        }
    }

    /// The help-section text: help, then `(values: …; default: …)` as swift-argument-parser appends them.
    public var helpDescription: String {
        let values = allowedValues.joined(separator: ", ")
        let suffix: String =
            switch (values.isEmpty, defaultDescription ?? "") {
            case (true, ""): ""
            case (false, ""): "(values: \(values))"
            case (true, let defaultValue): "(default: \(defaultValue))"
            case (false, let defaultValue): "(values: \(values); default: \(defaultValue))"
            }
        return [help, suffix].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The written names, short first: `["-f", "--file"]`.
    private var names: [String] {
        [short.map { "-\($0)" }, long.map { "--\($0)" }].compactMap { $0 }
    }

    /// The name the usage line and errors prefer: the long one if there is one.
    private var preferredName: String {
        if let long { return "--\(long)" }
        if let short { return "-\(short)" }
        return "<\(valueName ?? "")>"
    }
}
