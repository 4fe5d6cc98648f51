internal import CPulse
public import ClawTalkAudio

// @unchecked Sendable: a C-owner box used by exactly one playback thread at a time (see above).
/// Owner of one blocking PulseAudio playback stream (pa_simple, s16le).
///
/// Library rules:
/// - ``write(_:)`` blocks while the server-side buffer (``targetLatencyMilliseconds``, 40 ms by
///   default) is full, so writes are paced in real time; run them on a dedicated playback thread.
/// - pa_simple is not thread-safe: write, drain, flush, query and close from that one thread.
///   To stop quickly, the writer checks a stop flag between short writes (10–20 ms) and calls
///   ``flush()``, which drops the queued audio at once; the stop then takes at most one write
///   plus the flush, well under 50 ms.
/// - The server converts ``format`` to the device's own rate and channels.
public final class PulsePlaybackStream: @unchecked Sendable {
    /// The format ``write(_:)`` expects.
    public let format: AudioFormat
    /// Sink name, or nil for the server's default sink.
    public let device: String?
    /// Requested buffer length (target latency) in milliseconds.
    public let targetLatencyMilliseconds: Int

    private var stream: OpaquePointer?

    /// Connects to the default server and opens a playback stream on `device` (nil = default sink).
    /// A `device` that names no sink throws ``AudioDeviceError/open(device:message:)``, on
    /// pipewire-pulse too (which would otherwise play to the default sink).
    public init(
        format: AudioFormat, device: String? = nil, targetLatencyMilliseconds: Int = 40,
        streamName: String = "clawtalk playback"
    ) throws {
        // PulseAudio fails a stream whose sink does not exist; pipewire-pulse plays it to the
        // default sink instead (architecture.md §7.7). So a named sink is looked up first.
        if let device, !(try PulseDeviceCatalog().devices().contains { $0.kind == .sink && $0.name == device }) {
            throw AudioDeviceError.open(device: device, message: "No such entity (no sink of that name)")
        }
        var attr = PulseSimple.defaultAttributes
        attr.tlength = PulseSimple.bytes(format, milliseconds: targetLatencyMilliseconds)
        self.stream = try PulseSimple.open(
            record: false, format: format, device: device, streamName: streamName, attributes: attr)
        self.format = format
        self.device = device
        self.targetLatencyMilliseconds = targetLatencyMilliseconds
    }

    deinit {
        if let stream { pa_simple_free(stream) }
    }

    /// Queues interleaved samples, blocking while the buffer is full.
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        let stream = try open()
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        var code: Int32 = 0
        try check(pa_simple_write(stream, base, samples.count * MemoryLayout<Int16>.size, &code), code)
    }

    /// Array form of ``write(_:)``.
    public func write(_ samples: [Int16]) throws {
        try samples.withUnsafeBufferPointer { try write($0) }
    }

    /// Blocks until everything written has been played.
    public func drain() throws {
        let stream = try open()
        var code: Int32 = 0
        try check(pa_simple_drain(stream, &code), code)
    }

    /// Drops all queued audio immediately (for barge-in and stop).
    public func flush() throws {
        let stream = try open()
        var code: Int32 = 0
        try check(pa_simple_flush(stream, &code), code)
    }

    /// Total playback latency (buffers plus device) in microseconds.
    public func latencyMicroseconds() throws -> UInt64 {
        let stream = try open()
        var code: Int32 = 0
        let latency = pa_simple_get_latency(stream, &code)
        guard latency != pa_usec_t.max else { throw AudioDeviceError.io(PulseSimple.message(code)) }
        return latency
    }

    /// Closes the stream without draining; later calls throw ``AudioDeviceError/io(_:)``.
    /// Calling it twice is fine.
    public func close() {
        if let stream { pa_simple_free(stream) }
        stream = nil
    }

    private func open() throws -> OpaquePointer {
        guard let stream else { throw AudioDeviceError.io("playback stream is closed") }
        return stream
    }

    private func check(_ result: Int32, _ code: Int32) throws {
        guard result >= 0 else { throw AudioDeviceError.io(PulseSimple.message(code)) }
    }
}
