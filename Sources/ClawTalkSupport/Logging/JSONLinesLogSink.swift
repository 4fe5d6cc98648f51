/// Writes one JSON object per line: `{"ts":"…","level":"info","category":"gateway",
/// "event":"gateway.connected","protocol":4,"role":"node"}`.
///
/// Fields follow the four fixed keys, sorted by name; a field named like a fixed key gets a
/// `field.` prefix so it cannot overwrite it. Non-finite doubles become strings (`"nan"`,
/// `"inf"`, `"-inf"`), since JSON has no literal for them.
public struct JSONLinesLogSink: LogSink {
    /// Destination of the lines.
    public let output: LogOutput
    /// Whether lines start with `<N>` for journald.
    public let syslogPrefix: Bool

    /// The keys every line carries, in order.
    public static let fixedKeys = ["ts", "level", "category", "event"]

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
        line += "{\"ts\":\"\(LogTimestamp.format(record.timestamp))\""
        line += ",\"level\":\"\(record.level.rawValue)\""
        line += ",\"category\":\(JSONValue.quoted(record.category))"
        line += ",\"event\":\(JSONValue.quoted(record.event))"
        for name in record.sortedFieldNames {
            guard let value = record.fields[name] else { continue }
            let key = Self.fixedKeys.contains(name) ? "field.\(name)" : name
            line += ",\(JSONValue.quoted(key)):\(Self.render(value))"
        }
        return line + "}"
    }

    /// A field value as JSON text.
    static func render(_ value: LogValue) -> String {
        switch value {
        case .string(let s): JSONValue.quoted(s)
        case .int(let i): String(i)
        case .bool(let b): b ? "true" : "false"
        case .redacted: JSONValue.quoted(value.description)
        case .double(let d):
            d.isFinite ? String(d) : JSONValue.quoted(d.isNaN ? "nan" : (d > 0 ? "inf" : "-inf"))
        }
    }
}
