/// Declares one flag, option or positional argument of a command: how it is written, what it
/// accepts and how help describes it.
///
/// `defaultDescription` is help text only. The parser never injects it: settings resolve flags,
/// then the environment, then the config file, then defaults, so an absent flag must stay absent.
public struct OptionSpec: Equatable, Sendable {
    /// How the argument is written and how many values it takes.
    public enum Kind: Equatable, Sendable {
        /// A named switch without a value (`--local`); may repeat (counted).
        case flag
        /// A named option with one value (`--file <path>`); given twice, the last value wins.
        case option(valueName: String)
        /// A named option that collects every occurrence (`--hook <cmd> --hook <cmd>`).
        case repeatingOption(valueName: String)
        /// A value identified by its place on the command line.
        case positional(valueName: String, arity: Arity)
    }

    /// How many values a positional argument takes.
    public enum Arity: Equatable, Sendable {
        /// Exactly one; missing is a usage error.
        case required
        /// Zero or one.
        case optional
        /// Every remaining value (zero or more); must be the last positional.
        case variadic
    }

    /// The type values are converted to in phase 3.
    public enum ValueType: Equatable, Sendable {
        /// Any text.
        case string
        /// A decimal integer.
        case int
        /// A finite decimal number.
        case double
    }

    /// Long name without dashes (`gateway-url`); nil only for positionals.
    public var long: String?
    /// Short name (`v` for `-v`), if any.
    public var short: Character?
    /// How the argument is written and how many values it takes.
    public var kind: Kind
    /// The type values convert to.
    public var valueType: ValueType
    /// One-line help text.
    public var help: String
    /// What help shows as `(default: …)`; not applied by the parser.
    public var defaultDescription: String?
    /// The only values accepted (empty: anything that converts); shown as `(values: …)`.
    public var allowedValues: [String]
    /// For named options: whether leaving it out is a usage error.
    public var isRequired: Bool

    /// Creates a spec from its parts; prefer the `flag`, `option`, `repeating` and `positional` helpers.
    public init(
        long: String?, short: Character? = nil, kind: Kind, valueType: ValueType = .string, help: String,
        defaultDescription: String? = nil, allowedValues: [String] = [], isRequired: Bool = false
    ) {
        self.long = long
        self.short = short
        self.kind = kind
        self.valueType = valueType
        self.help = help
        self.defaultDescription = defaultDescription
        self.allowedValues = allowedValues
        self.isRequired = isRequired
    }

    /// A switch without a value, e.g. `.flag("local", help: "…")`.
    public static func flag(_ long: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, kind: .flag, help: help)
    }

    /// A named option taking one value; `valueName` defaults to the long name.
    public static func option(
        _ long: String, short: Character? = nil, valueName: String? = nil, type: ValueType = .string,
        help: String, default defaultDescription: String? = nil, allowedValues: [String] = [],
        required: Bool = false
    ) -> OptionSpec {
        OptionSpec(
            long: long, short: short, kind: .option(valueName: valueName ?? long), valueType: type, help: help,
            defaultDescription: defaultDescription, allowedValues: allowedValues, isRequired: required)
    }

    /// A named option that may be given several times, collecting every value.
    public static func repeating(
        _ long: String, short: Character? = nil, valueName: String? = nil, type: ValueType = .string,
        help: String, allowedValues: [String] = []
    ) -> OptionSpec {
        OptionSpec(
            long: long, short: short, kind: .repeatingOption(valueName: valueName ?? long), valueType: type,
            help: help, allowedValues: allowedValues)
    }

    /// A positional argument, e.g. `.positional("text", arity: .optional, help: "…")`.
    public static func positional(
        _ valueName: String, arity: Arity = .required, type: ValueType = .string, help: String,
        default defaultDescription: String? = nil, allowedValues: [String] = []
    ) -> OptionSpec {
        OptionSpec(
            long: nil, kind: .positional(valueName: valueName, arity: arity), valueType: type, help: help,
            defaultDescription: defaultDescription, allowedValues: allowedValues)
    }

    /// The name `ParsedArguments` files values under: the long name, or a positional's value name.
    public var key: String {
        if let long { return long }
        return valueName ?? ""
    }

    /// The placeholder shown in `<…>`, for everything that takes a value.
    public var valueName: String? {
        switch kind {
        case .flag: nil
        case .option(let name), .repeatingOption(let name), .positional(let name, _): name
        }
    }

    /// True for positional arguments.
    public var isPositional: Bool {
        if case .positional = kind { return true }
        return false
    }

    /// True for named options that take a value.
    public var takesValue: Bool {
        switch kind {
        case .option, .repeatingOption: true
        case .flag, .positional: false
        }
    }
}
