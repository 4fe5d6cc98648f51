/// One leaf of the settings tree: key, type, allowed values, documentation and accessors.
///
/// ``all`` is the single table that drives config-file parsing, environment and flag mapping,
/// validation, the documented default file and the `doctor` report.
public struct SettingDescriptor: Sendable {
    /// Dotted key, e.g. `talk.silenceTimeoutMs`.
    public let key: String
    /// Type and allowed values.
    public let kind: SettingKind
    /// One sentence saying what the setting does.
    public let doc: String
    /// Unit of a number (`ms`, `s`, `WPM`), nil when unitless.
    public let unit: String?
    /// Whether the value is a credential: never printed, logged or echoed in errors.
    public let isSecret: Bool
    /// Whether the setting may be unset (`null`).
    public let isOptional: Bool
    /// Example value (JSON5 text) shown commented out in the default file when the default is unset.
    public let example: String?
    /// Extra words describing allowed values beyond the kind (e.g. `builtin, none or a WAV path`).
    public let valuesHint: String?

    let read: @Sendable (Settings) -> SettingValue
    let write: @Sendable (inout Settings, SettingValue) -> Void
    /// Extra validation after type and range checks; returns the (possibly normalized) value
    /// or a reason for rejecting it.
    let refine: (@Sendable (SettingValue) -> Result<SettingValue, SettingRejection>)?

    /// The built-in default.
    public var defaultValue: SettingValue { read(.defaults) }

    /// The current value in `settings`.
    public func value(in settings: Settings) -> SettingValue { read(settings) }

    /// The `CLAWTALK_…` environment variable for this setting.
    public var environmentName: String { SettingNaming.environmentName(forKey: key) }

    /// The default command-line option for this setting (`--talk-silence-timeout-ms`).
    public var flagName: String { SettingNaming.flagName(forKey: key) }

    /// The key's components before the last (`["gateway", "operator"]` for `gateway.operator.enabled`).
    public var section: [String] { Array(key.split(separator: ".").dropLast().map(String.init)) }

    /// The last key component (`enabled`).
    public var name: String { String(key.split(separator: ".").last ?? "") }

    /// The descriptor for a dotted key.
    public static func named(_ key: String) -> SettingDescriptor? { byKey[key] }

    static let byKey: [String: SettingDescriptor] = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })

    static let byEnvironmentName: [String: SettingDescriptor] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.environmentName, $0) })

    static let byFlagName: [String: SettingDescriptor] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.flagName, $0) })

    /// Every section path (`gateway`, `gateway.operator`, `mic`, …) in table order.
    public static let sectionKeys: [String] = {
        var seen: [String] = []
        for descriptor in all {
            let parts = descriptor.section
            for end in 1...max(1, parts.count) where end <= parts.count {
                let section = parts[0..<end].joined(separator: ".")
                if !seen.contains(section) { seen.append(section) }
            }
        }
        return seen
    }()
}

/// Why a value was refused by a setting's own check.
struct SettingRejection: Error {
    var reason: String
}
