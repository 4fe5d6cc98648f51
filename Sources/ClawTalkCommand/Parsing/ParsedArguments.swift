/// Typed access to a command's arguments after phases 2–4, keyed by `OptionSpec.key`.
///
/// Single-value accessors return the last occurrence (the last of a repeated option wins).
public struct ParsedArguments: Equatable, Sendable {
    /// Converted values per spec key, in command-line order.
    public private(set) var values: [String: [ArgumentValue]]

    /// Parsed arguments from a prepared table (tests and composed commands build these directly).
    public init(_ values: [String: [ArgumentValue]] = [:]) {
        self.values = values
    }

    /// Runs matching, conversion and validation of `tokens` against `specs`.
    public init(tokens: [ArgumentToken], specs: [OptionSpec]) throws(CLIError) {
        let matched = try ArgumentMatcher.match(tokens, specs: specs)
        let parsed = try ArgumentConverter.convert(matched, specs: specs)
        try ArgumentValidator.validate(parsed, specs: specs)
        self = parsed
    }

    /// Whether the spec under `key` occurred at all.
    public func contains(_ key: String) -> Bool {
        !(values[key] ?? []).isEmpty
    }

    /// Whether the flag under `key` was given.
    public func flag(_ key: String) -> Bool {
        contains(key)
    }

    /// How often the flag under `key` was given (`-vv` is 2).
    public func count(_ key: String) -> Int {
        values[key]?.count ?? 0
    }

    /// The last string value under `key`.
    public func string(_ key: String) -> String? {
        strings(key).last
    }

    /// Every string value under `key`.
    public func strings(_ key: String) -> [String] {
        (values[key] ?? []).compactMap {
            if case .string(let text) = $0 { text } else { nil }
        }
    }

    /// The last integer value under `key`.
    public func int(_ key: String) -> Int? {
        ints(key).last
    }

    /// Every integer value under `key`.
    public func ints(_ key: String) -> [Int] {
        (values[key] ?? []).compactMap {
            if case .int(let number) = $0 { number } else { nil }
        }
    }

    /// The last number under `key`; integers widen to `Double`.
    public func double(_ key: String) -> Double? {
        switch values[key]?.last {
        case .double(let number): number
        case .int(let number): Double(number)
        default: nil
        }
    }

    /// The last string value under `key` as a `String`-backed enum (allowed values keep it valid).
    public func value<Value: RawRepresentable>(_ key: String, as type: Value.Type) -> Value?
    where Value.RawValue == String {
        string(key).flatMap(Value.init(rawValue:))
    }
}
