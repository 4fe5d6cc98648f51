/// Writes one human-readable line per record:
/// `2026-11-29T10:00:00.123Z info gateway gateway.connected protocol=4 role=node`.
///
/// Fields are sorted by name; a value that is empty or contains whitespace, `"`, `=`, `\` or a
/// control character is double-quoted with JSON escapes. With `syslogPrefix` each line starts
/// with `<N>` (the level's syslog priority) so journald keeps the level.
public struct TextLogSink: LogSink {
    /// Destination of the lines.
    public let output: LogOutput
    /// Whether lines start with `<N>` for journald.
    public let syslogPrefix: Bool

    /// Creates a sink writing to `output` (stderr by default).
    public init(output: LogOutput = .standardError, syslogPrefix: Bool = false) {
        self.output = output
        self.syslogPrefix = syslogPrefix
    }

    /// Formats and writes the record.
    public func write(_ record: LogRecord) {
        output.write(line: format(record))
    }

    /// The line for `record`, without the trailing newline.
    public func format(_ record: LogRecord) -> String {
        var line = syslogPrefix ? "<\(record.level.syslogPriority)>" : ""
        line += LogTimestamp.format(record.timestamp)
        line += " \(record.level.rawValue) \(record.category) \(record.event)"
        for name in record.sortedFieldNames {
            guard let value = record.fields[name] else { continue }
            line += " \(name)=\(Self.render(value))"
        }
        return line
    }

    /// A field value as it appears after `name=`.
    static func render(_ value: LogValue) -> String {
        switch value {
        case .string(let s):
            needsQuoting(s) ? JSONValue.quoted(s) : s
        case .int, .bool, .redacted:
            value.description
        case .double(let d):
            d.isFinite ? String(d) : (d.isNaN ? "nan" : (d > 0 ? "inf" : "-inf"))
        }
    }

    private static func needsQuoting(_ s: String) -> Bool {
        if s.isEmpty { return true }
        return s.unicodeScalars.contains { c in
            c == "\"" || c == "=" || c == "\\" || c.properties.isWhitespace || c.value < 0x20 || c.value == 0x7F
        }
    }
}
