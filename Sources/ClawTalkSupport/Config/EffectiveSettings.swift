/// The merged configuration and where each value came from.
public struct EffectiveSettings: Sendable, Equatable {
    /// The settings to run with.
    public var settings: Settings
    /// Source of every setting by dotted key (all keys of ``SettingDescriptor/all`` are present).
    public var sources: [String: SettingSource]
    /// The config file consulted.
    public var configFile: String
    /// Whether that file existed and was applied.
    public var configFileLoaded: Bool
    /// Non-fatal problems, e.g. unknown `CLAWTALK_*` environment variables.
    public var warnings: [String]

    /// Creates a result.
    public init(
        settings: Settings, sources: [String: SettingSource], configFile: String, configFileLoaded: Bool,
        warnings: [String] = []
    ) {
        self.settings = settings
        self.sources = sources
        self.configFile = configFile
        self.configFileLoaded = configFileLoaded
        self.warnings = warnings
    }

    /// Where the setting `key` came from (`default` for unknown keys).
    public func source(of key: String) -> SettingSource { sources[key] ?? .default }
}
