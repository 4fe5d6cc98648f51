public import Foundation

/// Merges the configuration: flags > `CLAWTALK_*` environment > config file > defaults.
///
/// - **File:** `--config PATH` (``configPath``), else `$CLAWTALK_CONFIG`, else
///   `$XDG_CONFIG_HOME/clawtalk/config.json5` (default `~/.config/clawtalk/config.json5`). JSON5
///   with nested sections (`{ talk: { silenceTimeoutMs: 900 } }`). A missing default file is
///   fine; a named file must exist. Unknown keys, wrong types, invalid choices and out-of-range
///   numbers are errors naming the file and line.
/// - **Environment:** `CLAWTALK_` + the key in upper snake case (see ``SettingNaming``), e.g.
///   `CLAWTALK_TALK_SILENCE_TIMEOUT_MS=900`. Booleans take `true/false/1/0/yes/no/on/off`; an
///   empty value unsets an optional setting; maps take `{a: 0.5}` or `a=0.5,b=0.7`. Unknown
///   `CLAWTALK_*` names are warnings; bad values are errors naming the variable.
/// - **Flags:** dotted keys (`gateway.url`) or option names (`--gateway-url`) mapped to their
///   text, parsed like environment values; recorded as ``SettingSource/flag(_:)`` with the
///   option name.
public struct ConfigLoader: Sendable {
    /// Environment variable naming the config file when `--config` is not given.
    public static let configPathVariable = "CLAWTALK_CONFIG"
    /// `CLAWTALK_*` variables that are not settings and are not warned about.
    public static let reservedEnvironmentNames: Set<String> = [configPathVariable, "CLAWTALK_DEVICE_TESTS"]

    /// The environment to read `CLAWTALK_*`, `CLAWTALK_CONFIG` and XDG variables from.
    public var environment: [String: String]
    /// Command-line values by dotted key or option name.
    public var flags: [String: String]
    /// The file named by `--config`, if any.
    public var configPath: String?

    /// Creates a loader.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, flags: [String: String] = [:],
        configPath: String? = nil
    ) {
        self.environment = environment
        self.flags = flags
        self.configPath = configPath
    }

    /// The config file to read and whether it was named explicitly (then it must exist).
    public var resolvedConfigPath: (path: String, explicit: Bool) {
        let paths = XDGPaths(environment: environment)
        if let configPath { return (paths.expandingTilde(configPath), true) }
        if let named = environment[Self.configPathVariable], !named.isEmpty {
            return (paths.expandingTilde(named), true)
        }
        return (paths.configFile, false)
    }

    /// Loads and merges everything.
    public func load() throws(ConfigError) -> EffectiveSettings {
        var settings = Settings.defaults
        var sources = Dictionary(uniqueKeysWithValues: SettingDescriptor.all.map { ($0.key, SettingSource.default) })
        let (path, explicit) = resolvedConfigPath
        var loaded = false
        if let text = try Self.readFile(path, mustExist: explicit) {
            try Self.apply(fileText: text, path: path, to: &settings, sources: &sources)
            loaded = true
        }
        let warnings = try applyEnvironment(to: &settings, sources: &sources)
        try applyFlags(to: &settings, sources: &sources)
        return EffectiveSettings(
            settings: settings, sources: sources, configFile: path, configFileLoaded: loaded, warnings: warnings)
    }

    /// Reads the file as UTF-8; nil when it does not exist and need not.
    static func readFile(_ path: String, mustExist: Bool) throws(ConfigError) -> String? {
        let contents: (bytes: [UInt8], owner: UInt32, mode: UInt32)?
        do {
            contents = try POSIXFile.read(path, followSymlinks: true)
        } catch {
            throw .unreadableFile(path: path, reason: error.message)
        }
        guard let contents else {
            if mustExist { throw .unreadableFile(path: path, reason: "no such file") }
            return nil
        }
        guard let text = String(validating: contents.bytes, as: UTF8.self) else {
            throw .unreadableFile(path: path, reason: "not valid UTF-8")
        }
        return text
    }

    private func applyEnvironment(to settings: inout Settings, sources: inout [String: SettingSource])
        throws(ConfigError)
        -> [String]
    {
        var warnings: [String] = []
        let names = environment.keys.filter { $0.hasPrefix(SettingNaming.environmentPrefix) }.sorted()
        for name in names where !Self.reservedEnvironmentNames.contains(name) {
            guard let descriptor = SettingDescriptor.byEnvironmentName[name] else {
                let suggestion = EditDistance.suggestion(
                    for: name, among: SettingDescriptor.all.map(\.environmentName))
                warnings.append(
                    "unknown environment variable \(name) ignored"
                        + (suggestion.map { " (did you mean \($0)?)" } ?? ""))
                continue
            }
            let source = SettingSource.environment(name)
            let value: SettingValue
            do {
                value = try descriptor.decode(text: environment[name] ?? "")
            } catch {
                throw Self.error(error, descriptor: descriptor, source: source, line: nil)
            }
            descriptor.write(&settings, value)
            sources[descriptor.key] = source
        }
        return warnings
    }

    private func applyFlags(to settings: inout Settings, sources: inout [String: SettingSource]) throws(ConfigError) {
        for (key, text) in flags.sorted(by: { $0.key < $1.key }) {
            guard let descriptor = SettingDescriptor.byKey[key] ?? SettingDescriptor.byFlagName[key] else {
                let candidates =
                    key.hasPrefix("--") ? SettingDescriptor.all.map(\.flagName) : SettingDescriptor.all.map(\.key)
                throw .unknownFlag(key: key, suggestion: EditDistance.suggestion(for: key, among: candidates))
            }
            let source = SettingSource.flag(descriptor.flagName)
            let value: SettingValue
            do {
                value = try descriptor.decode(text: text)
            } catch {
                throw Self.error(error, descriptor: descriptor, source: source, line: nil)
            }
            descriptor.write(&settings, value)
            sources[descriptor.key] = source
        }
    }

    /// Turns a value problem into the public error, with its origin.
    static func error(_ problem: SettingProblem, descriptor: SettingDescriptor, source: SettingSource, line: Int?)
        -> ConfigError
    {
        let key = descriptor.key
        switch problem {
        case .wrongType(let expected, let found):
            return .wrongType(key: key, expected: expected, found: found, source: source, line: line)
        case .invalidChoice(let value, let allowed):
            return .invalidChoice(key: key, value: value, allowed: allowed, source: source, line: line)
        case .outOfRange(let value, let range):
            return .outOfRange(
                key: key, value: descriptor.isSecret ? "<redacted>" : value, range: range, source: source, line: line)
        case .invalid(let value, let reason):
            return .invalidValue(
                key: key, value: descriptor.isSecret ? "<redacted>" : value, reason: reason, source: source, line: line)
        }
    }
}
