public import Foundation

/// Formats the CLI's own log lines (service start and stop) as text or JSON lines.
///
/// A stand-in until the shared `ClawTalkSupport` logger is wired in; it follows the same shape:
/// ISO-8601 timestamp, level, dot-separated event name, then fields.
public struct LogLineFormatter: Sendable {
    /// Output format, as `--log-format` names it.
    public enum Format: String, Sendable, CaseIterable {
        /// `2025-01-01T12:00:00.000Z info service.started pid=42`
        case text
        /// `{"ts":"…","level":"info","event":"service.started","pid":"42"}`
        case json
    }

    /// Severity, as `--log-level` names it, lowest first.
    public enum Level: String, Sendable, CaseIterable, Comparable {
        /// Everything, including per-frame detail.
        case trace
        /// Developer detail.
        case debug
        /// Normal operation.
        case info
        /// Significant but normal events.
        case notice
        /// Something went wrong but the service continues.
        case warning
        /// A failure.
        case error

        /// Orders levels by severity.
        public static func < (lhs: Level, rhs: Level) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// Line format.
    public var format: Format
    /// Lines below this level are dropped.
    public var minimumLevel: Level

    /// A formatter writing `format` lines at or above `minimumLevel`.
    public init(format: Format = .text, minimumLevel: Level = .info) {
        self.format = format
        self.minimumLevel = minimumLevel
    }

    /// One line with a trailing newline, or nil when `level` is below the minimum.
    public func line(
        _ level: Level, event: String, fields: KeyValuePairs<String, String> = [:], date: Date = Date()
    ) -> String? {
        guard level >= minimumLevel else { return nil }
        let timestamp = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        switch format {
        case .text:
            let rendered = fields.map { " \($0.key)=\(quotedIfNeeded($0.value))" }.joined()
            return "\(timestamp) \(level.rawValue) \(event)\(rendered)\n"
        case .json:
            var members = [("ts", timestamp), ("level", level.rawValue), ("event", event)]
            members += fields.map { ($0.key, $0.value) }
            let body = members.map { "\(jsonString($0.0)):\(jsonString($0.1))" }.joined(separator: ",")
            return "{\(body)}\n"
        }
    }

    /// Quotes a text-format value that contains spaces, quotes or `=`.
    private func quotedIfNeeded(_ value: String) -> String {
        value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) || value.isEmpty ? jsonString(value) : value
    }

    /// A JSON string literal for `value`.
    private func jsonString(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
