public import Foundation

/// One log event as handed to a ``LogSink``: fields are already redacted where required.
public struct LogRecord: Sendable, Equatable {
    /// When the event happened (wall clock).
    public var timestamp: Date
    /// Severity.
    public var level: LogLevel
    /// Dot-separated component name, e.g. `talk.runtime`.
    public var category: String
    /// Dot-separated event name, e.g. `gateway.connected`.
    public var event: String
    /// Typed details; sinks print them sorted by key.
    public var fields: [String: LogValue]

    /// Creates a record.
    public init(
        timestamp: Date, level: LogLevel, category: String, event: String, fields: [String: LogValue] = [:]
    ) {
        self.timestamp = timestamp
        self.level = level
        self.category = category
        self.event = event
        self.fields = fields
    }

    /// Field names in output order (sorted, so lines are stable and diffable).
    public var sortedFieldNames: [String] { fields.keys.sorted() }
}
