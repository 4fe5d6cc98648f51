public import Foundation

/// Structured logger: events with typed fields, filtered by level, redacted, and written to a sink.
///
/// A `Sendable` value: copy it freely, derive per-component loggers with ``child(category:)``
/// and rate-limited ones with ``throttled(key:every:)``.
/// Never call it from a real-time audio thread.
///
/// ```swift
/// logger.info("gateway.connected", ["protocol": 4, "role": "node"])
/// ```
public struct Logger: Sendable {
    /// Rate-limit rule attached by ``throttled(key:every:)``.
    struct ThrottleRule: Sendable {
        var key: String
        var interval: Duration
    }

    /// Dot-separated component name, e.g. `talk.runtime`.
    public var category: String
    /// Records below this level are dropped.
    public var minimumLevel: LogLevel
    /// Destination of records.
    public var sink: any LogSink
    /// When true, sensitive fields (transcripts, tokens, …) are written in clear (`--log-sensitive`).
    public var logSensitive: Bool
    /// Shared rate-limit state (one per logger tree).
    public let throttle: LogThrottle
    /// Wall clock for record timestamps.
    let now: @Sendable () -> Date
    var throttleRule: ThrottleRule?

    /// Creates a logger.
    /// - Parameters:
    ///   - category: component name, dot-separated.
    ///   - minimumLevel: lowest level written (default `info`).
    ///   - sink: destination (default a text sink on stderr).
    ///   - logSensitive: write sensitive fields unredacted.
    ///   - throttle: rate-limit state, shared by children.
    ///   - now: wall clock for timestamps (injected by tests).
    public init(
        category: String,
        minimumLevel: LogLevel = .info,
        sink: any LogSink = TextLogSink(),
        logSensitive: Bool = false,
        throttle: LogThrottle = LogThrottle(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.category = category
        self.minimumLevel = minimumLevel
        self.sink = sink
        self.logSensitive = logSensitive
        self.throttle = throttle
        self.now = now
    }

    /// A logger that writes nothing: the default for components built without one.
    public static let discarding = Logger(category: "discard", minimumLevel: .error, sink: DiscardingLogSink())

    /// Whether a record at `level` would be written.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= minimumLevel }

    /// A logger for a sub-component: category `"<category>.<name>"` (or `name` if this one has none).
    public func child(category name: String) -> Logger {
        var copy = self
        copy.category = category.isEmpty ? name : "\(category).\(name)"
        copy.throttleRule = nil
        return copy
    }

    /// This logger limited to one line per `interval` for `key` (scoped to the category); the next
    /// line written after a suppressed stretch carries `suppressed=N`.
    public func throttled(key: String, every interval: Duration) -> Logger {
        var copy = self
        copy.throttleRule = ThrottleRule(key: "\(category)|\(key)", interval: interval)
        return copy
    }

    /// Writes `event` at `level`; `fields` is evaluated only if the level is enabled.
    public func log(_ level: LogLevel, _ event: String, _ fields: @autoclosure () -> [String: LogValue] = [:]) {
        guard isEnabled(level) else { return }
        var fields = fields()
        if let rule = throttleRule {
            switch throttle.admit(key: rule.key, every: rule.interval) {
            case .suppress: return
            case .emit(let suppressed) where suppressed > 0: fields["suppressed"] = .int(suppressed)
            case .emit: break
            }
        }
        if !logSensitive { fields = LogRedaction.redact(fields) }
        sink.write(LogRecord(timestamp: now(), level: level, category: category, event: event, fields: fields))
    }

    /// Writes a `trace` record.
    public func trace(_ event: String, _ fields: @autoclosure () -> [String: LogValue] = [:]) {
        log(.trace, event, fields())
    }

    /// Writes a `debug` record.
    public func debug(_ event: String, _ fields: @autoclosure () -> [String: LogValue] = [:]) {
        log(.debug, event, fields())
    }

    /// Writes an `info` record.
    public func info(_ event: String, _ fields: @autoclosure () -> [String: LogValue] = [:]) {
        log(.info, event, fields())
    }

    /// Writes a `notice` record.
    public func notice(_ event: String, _ fields: @autoclosure () -> [String: LogValue] = [:]) {
        log(.notice, event, fields())
    }

    /// Writes a `warning` record.
    public func warning(_ event: String, _ fields: @autoclosure () -> [String: LogValue] = [:]) {
        log(.warning, event, fields())
    }

    /// Writes an `error` record.
    public func error(_ event: String, _ fields: @autoclosure () -> [String: LogValue] = [:]) {
        log(.error, event, fields())
    }
}
