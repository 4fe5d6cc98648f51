import Synchronization

/// A sink that keeps records in memory, for tests in any module.
public final class RecordingLogSink: LogSink {
    private let storage = Mutex<[LogRecord]>([])

    /// Creates an empty sink.
    public init() {}

    /// Appends the record.
    public func write(_ record: LogRecord) {
        storage.locked { $0.append(record) }
    }

    /// Everything written so far, in order.
    public var records: [LogRecord] { storage.locked { $0 } }

    /// The event names written so far, in order.
    public var events: [String] { records.map(\.event) }

    /// Forgets all records.
    public func removeAll() {
        storage.locked { $0.removeAll() }
    }
}
