/// Severity of a log line, from the chattiest (`trace`) to the most severe (`error`).
///
/// The raw value is the name used in config (`log.level`), in text lines and in JSON lines.
public enum LogLevel: String, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    /// Per-frame or per-message detail, off unless chasing a bug.
    case trace
    /// Diagnostic detail: state transitions, periodic stats.
    case debug
    /// Normal operation: connected, wake detected, reply spoken.
    case info
    /// Unusual but expected: reconnect, fallback engine chosen.
    case notice
    /// Something is degraded: dropped frames, a method unavailable.
    case warning
    /// Something failed and the user will notice.
    case error

    /// The syslog priority journald reads from a `<N>` line prefix (trace and debug share 7).
    public var syslogPriority: Int {
        switch self {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        }
    }

    /// Position in the severity order, used for comparison.
    private var rank: Int {
        switch self {
        case .trace: 0
        case .debug: 1
        case .info: 2
        case .notice: 3
        case .warning: 4
        case .error: 5
        }
    }

    /// Orders levels by severity (`trace` < `error`).
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }

    /// The level's name, e.g. `info`.
    public var description: String { rawValue }
}
