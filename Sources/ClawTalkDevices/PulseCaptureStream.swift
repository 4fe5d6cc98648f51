internal import CPulse
public import ClawTalkAudio

// @unchecked Sendable: a C-owner box used by exactly one capture thread at a time (see above).
/// Owner of one blocking PulseAudio record stream (pa_simple, s16le).
///
/// Library rules:
/// - ``read(into:)`` blocks until the whole buffer is filled; run it on a dedicated capture thread.
/// - pa_simple is not thread-safe: create, read, query and close from that one thread (or hand the
///   stream over once, before first use). ``close()`` must not race a blocked ``read(into:)``.
/// - The server converts from the device's own rate and channels to ``format``.
/// - The fragment size asks the server to deliver every ``fragmentMilliseconds`` (20 ms default)
///   for low latency.
public final class PulseCaptureStream: @unchecked Sendable {
    /// The format delivered by ``read(into:)``.
    public let format: AudioFormat
    /// Source name, or nil for the server's default source.
    public let device: String?
    /// Requested fragment length in milliseconds.
    public let fragmentMilliseconds: Int

    private var stream: OpaquePointer?

    /// Connects to the default server and opens a record stream on `device` (nil = default source).
    public init(
        format: AudioFormat = .speech, device: String? = nil, fragmentMilliseconds: Int = 20,
        streamName: String = "clawtalk capture"
    ) throws {
        var attr = PulseSimple.defaultAttributes
        attr.fragsize = PulseSimple.bytes(format, milliseconds: fragmentMilliseconds)
        self.stream = try PulseSimple.open(
            record: true, format: format, device: device, streamName: streamName, attributes: attr)
        self.format = format
        self.device = device
        self.fragmentMilliseconds = fragmentMilliseconds
    }

    deinit {
        if let stream { pa_simple_free(stream) }
    }

    /// Blocks until `buffer` is completely filled with interleaved samples.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws {
        let stream = try open()
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        var code: Int32 = 0
        try check(pa_simple_read(stream, base, buffer.count * MemoryLayout<Int16>.size, &code), code)
    }

    /// Total record latency (device plus buffers) in microseconds.
    public func latencyMicroseconds() throws -> UInt64 {
        let stream = try open()
        var code: Int32 = 0
        let latency = pa_simple_get_latency(stream, &code)
        guard latency != pa_usec_t.max else { throw AudioDeviceError.io(PulseSimple.message(code)) }
        return latency
    }

    /// Discards audio captured but not yet read.
    public func flush() throws {
        let stream = try open()
        var code: Int32 = 0
        try check(pa_simple_flush(stream, &code), code)
    }

    /// Closes the stream; later calls throw ``AudioDeviceError/io(_:)``. Calling it twice is fine.
    public func close() {
        if let stream { pa_simple_free(stream) }
        stream = nil
    }

    private func open() throws -> OpaquePointer {
        guard let stream else { throw AudioDeviceError.io("capture stream is closed") }
        return stream
    }

    private func check(_ result: Int32, _ code: Int32) throws {
        guard result >= 0 else { throw AudioDeviceError.io(PulseSimple.message(code)) }
    }
}
