/// Where log records go. Implementations must be safe to call from any thread.
public protocol LogSink: Sendable {
    /// Writes one record (one line for the line-oriented sinks).
    func write(_ record: LogRecord)
}

/// A sink that drops everything: for components built without a logger.
public struct DiscardingLogSink: LogSink {
    /// Creates the sink.
    public init() {}
    /// Does nothing.
    public func write(_ record: LogRecord) {}
}
