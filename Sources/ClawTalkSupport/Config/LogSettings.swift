/// Logging (`log.*`).
public struct LogSettings: Sendable, Equatable {
    /// Lowest level written. Default `info`.
    public var level = LogLevel.info
    /// Line format. Default `text`.
    public var format = LogFormat.text
    /// Prefix lines with `<N>` syslog priorities for journald. Default false.
    public var syslogPrefix = false
    /// Write transcripts and credentials unredacted. Default false.
    public var sensitive = false

    /// Creates the defaults.
    public init() {}
}

/// Log line format (`log.format`).
public enum LogFormat: String, Sendable, CaseIterable {
    /// Human-readable lines.
    case text
    /// One JSON object per line.
    case json
}
