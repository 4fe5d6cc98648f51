internal import CPulse
public import ClawTalkAudio
import ClawTalkSupport
import Glibc

// @unchecked Sendable: a C-owner box used by exactly one capture thread at a time (see above).
/// Owner of one PulseAudio record stream (s16le) on its own connection and main loop.
///
/// Library rules:
/// - The connection is a ``PulseContext``: a pa_mainloop driven only inside ``read(into:)`` and
///   ``latencyMicroseconds()`` on the calling thread. There is no main-loop thread, so the server's
///   packets wake nobody until the reader asks for them.
/// - Create, read, query and close from one thread (or hand the stream over once, before first
///   use). ``close()`` must not race a blocked ``read(into:)``.
/// - The server converts from the device's own rate and channels to ``format``.
/// - The fragment size asks the server for a source latency of ``fragmentMilliseconds`` (20 ms
///   default), so a real device wakes about once per fragment.
///
/// Reading, two ways:
/// - **prompt** (default): a read waits for each packet as it arrives and returns as soon as the
///   buffer is full. The lowest latency; one wake-up per server packet, which on a null sink
///   clocked at 5 ms is 200 per second. The bench's monitor recorders use it.
/// - **paced** (``pacedReads``, the node's capture): a read that lacks audio first sleeps for as
///   long as that audio takes to be captured, then takes everything the server sent meanwhile, and
///   waits packet by packet only for what is still missing. About one wake-up per frame, whatever
///   the server's packet size, at the price of at most one packet's delay.
///
/// A source that delivers nothing for ``stallLimit`` fails the read (``AudioDeviceError/io(_:)``),
/// so the capture loop reopens it instead of waiting forever. The owner's `shouldStop` check is
/// asked at least every 50 ms while the stream opens or a read waits for audio (a fresh sound
/// server may send nothing for seconds): opening then throws ``AudioDeviceError/interrupted``
/// and a read returns early, its buffer not filled.
public final class PulseCaptureStream: @unchecked Sendable {
    /// The format delivered by ``read(into:)``.
    public let format: AudioFormat
    /// Source name, or nil for the server's default source.
    public let device: String?
    /// Requested fragment length in milliseconds.
    public let fragmentMilliseconds: Int
    /// True when reads sleep for the missing audio instead of waking per packet (see above).
    public let pacedReads: Bool
    /// A read fails after this long without audio from the server.
    public let stallLimit: Duration

    private var connection: PulseContext?
    private var stream: OpaquePointer?
    /// Audio taken from the server but not yet read: `staging[stagedStart..<stagedEnd]`.
    private let staging: UnsafeMutableBufferPointer<Int16>
    private var stagedStart = 0
    private var stagedEnd = 0
    private var lastAudioNanoseconds: UInt64
    private let shouldStop: (@Sendable () -> Bool)?
    /// Added to a paced read's sleep so that the packet carrying the missing audio's end has
    /// usually arrived: one wake-up per frame rather than two (a null sink sends 5 ms packets).
    private static let pacingSlack: UInt64 = 4_000_000

    /// Connects to `server` (nil: the default, `PULSE_SERVER` or the session's) and opens a record
    /// stream on `device` (nil = default source). Throws ``AudioDeviceError/serverUnavailable(_:)`` without a server and
    /// ``AudioDeviceError/open(device:message:)`` when the stream does not open.
    public init(
        format: AudioFormat = .speech, device: String? = nil, server: String? = nil, fragmentMilliseconds: Int = 20,
        streamName: String = "clawtalk capture", pacedReads: Bool = false, openTimeout: Duration = .seconds(5),
        stallLimit: Duration = .seconds(5), shouldStop: (@Sendable () -> Bool)? = nil
    ) throws {
        guard format.channels <= Int(PA_CHANNELS_MAX), format.sampleRate <= Int(PA_RATE_MAX) else {
            throw AudioDeviceError.format(format)
        }
        self.format = format
        self.device = device
        self.fragmentMilliseconds = fragmentMilliseconds
        self.pacedReads = pacedReads
        self.stallLimit = stallLimit
        self.shouldStop = shouldStop
        // One second, or four fragments if that is more: the server never sends more than a
        // fragment per packet.
        let capacity = max(
            format.sampleCount(milliseconds: 1000), 4 * format.sampleCount(milliseconds: fragmentMilliseconds))
        staging = .allocate(capacity: capacity)
        staging.initialize(repeating: 0)
        lastAudioNanoseconds = MonotonicTime.nanoseconds()
        do {
            try open(server: server, streamName: streamName, timeout: openTimeout)
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
        staging.deallocate()
    }

    /// Blocks until `buffer` is completely filled with interleaved samples, or returns early (not
    /// filled) once `shouldStop` says so.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws {
        let (connection, stream) = try open()
        var filled = takeStaged(into: buffer, at: 0)
        var slept = !pacedReads
        while filled < buffer.count {
            if let shouldStop, shouldStop() { return }
            try connection.dispatchPending()
            try check(stream, connection)
            try pull(stream, connection)
            filled += takeStaged(into: buffer, at: filled)
            guard filled < buffer.count else { break }
            let now = MonotonicTime.nanoseconds()
            if now - lastAudioNanoseconds > stallLimit.wholeNanoseconds {
                throw AudioDeviceError.io("no audio from the source for \(stallLimit)")
            }
            if !slept {
                // Sleep for the audio still missing, plus a little for the packet that carries
                // its end; what arrives meanwhile wakes nobody.
                slept = true
                Self.sleep(nanoseconds: format.duration(samples: buffer.count - filled) + Self.pacingSlack)
            } else {
                // 50 ms: a stop is noticed that soon even while the source sends nothing.
                try connection.waitForEvents(microseconds: 50_000)
            }
        }
    }

    /// Audio taken from the server but not yet read (see ``CaptureInputStream/backlogNanoseconds``).
    public var backlogNanoseconds: UInt64 { format.duration(samples: stagedEnd - stagedStart) }

    /// Total record latency (device plus buffers, including audio taken but not yet read) in
    /// microseconds.
    public func latencyMicroseconds() throws -> UInt64 {
        let (connection, stream) = try open()
        var usec: pa_usec_t = 0
        var negative: Int32 = 0
        if pa_stream_get_latency(stream, &usec, &negative) < 0 {
            // No timing information yet: ask for it and wait (≤ 1 s).
            guard let operation = pa_stream_update_timing_info(stream, nil, nil) else {
                throw AudioDeviceError.io(connection.lastError)
            }
            defer { pa_operation_unref(operation) }
            try connection.iterate(waitingFor: "timing info", deadline: .now + .seconds(1)) {
                pa_operation_get_state(operation) != PA_OPERATION_RUNNING
            }
            guard pa_stream_get_latency(stream, &usec, &negative) >= 0 else {
                throw AudioDeviceError.io(connection.lastError)
            }
        }
        let staged = format.duration(samples: stagedEnd - stagedStart) / 1000
        return (negative != 0 ? 0 : usec) + staged
    }

    /// Closes the stream and its connection; later calls throw ``AudioDeviceError/io(_:)``.
    /// Calling it twice is fine.
    public func close() {
        if let stream {
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
        }
        stream = nil
        connection = nil
        stagedStart = 0
        stagedEnd = 0
    }

    // MARK: - Private

    private func open(server: String?, streamName: String, timeout: Duration) throws {
        let connection = try PulseContext(server: server, timeout: timeout, interrupted: shouldStop)
        self.connection = connection
        var spec = pa_sample_spec(
            format: PA_SAMPLE_S16LE, rate: UInt32(format.sampleRate), channels: UInt8(format.channels))
        guard let stream = pa_stream_new(connection.context, streamName, &spec, nil) else {
            throw AudioDeviceError.open(device: device, message: connection.lastError)
        }
        self.stream = stream
        var attributes = PulseSimple.defaultAttributes
        attributes.fragsize = PulseSimple.bytes(format, milliseconds: fragmentMilliseconds)
        let flags = pa_stream_flags_t(
            rawValue: PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue
                | PA_STREAM_AUTO_TIMING_UPDATE.rawValue)
        guard pa_stream_connect_record(stream, device, &attributes, flags) >= 0 else {
            throw AudioDeviceError.open(device: device, message: connection.lastError)
        }
        try connection.iterate(
            waitingFor: "opening the record stream", deadline: .now + timeout, interrupted: shouldStop
        ) {
            switch pa_stream_get_state(stream) {
            case PA_STREAM_READY: return true
            case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
                throw AudioDeviceError.open(device: device, message: connection.lastError)
            default: return false
            }
        }
        // PulseAudio fails a stream whose source does not exist; pipewire-pulse connects it to the
        // default source instead (architecture.md §7.7). Either way the caller asked for this one.
        if let device, let connected = pa_stream_get_device_name(stream).map({ String(cString: $0) }),
            connected != device
        {
            throw AudioDeviceError.open(
                device: device, message: "No such entity (the server connected the stream to '\(connected)')")
        }
        lastAudioNanoseconds = MonotonicTime.nanoseconds()
    }

    private func open() throws -> (PulseContext, OpaquePointer) {
        guard let connection, let stream else { throw AudioDeviceError.io("capture stream is closed") }
        return (connection, stream)
    }

    /// Throws when the connection or the stream has failed (server gone, source removed).
    private func check(_ stream: OpaquePointer, _ connection: PulseContext) throws {
        guard pa_context_get_state(connection.context) == PA_CONTEXT_READY else {
            throw AudioDeviceError.io("\(connection.serverDescription): \(connection.lastError)")
        }
        guard pa_stream_get_state(stream) == PA_STREAM_READY else {
            throw AudioDeviceError.io("capture stream ended: \(connection.lastError)")
        }
    }

    /// Moves every fragment the server has sent into the staging buffer (holes as silence).
    private func pull(_ stream: OpaquePointer, _ connection: PulseContext) throws {
        let sampleBytes = MemoryLayout<Int16>.size
        while pa_stream_readable_size(stream) > 0 {
            var data: UnsafeRawPointer?
            var length = 0
            guard pa_stream_peek(stream, &data, &length) >= 0 else {
                throw AudioDeviceError.io("reading the capture stream: \(connection.lastError)")
            }
            guard length > 0 else { return }
            let samples = length / sampleBytes
            guard samples <= staging.count else {
                throw AudioDeviceError.io("a capture fragment of \(length) bytes exceeds the buffer")
            }
            if staging.count - stagedEnd < samples {
                // Compact: move what is left to the front.
                let left = stagedEnd - stagedStart
                guard staging.count - left >= samples, let base = staging.baseAddress else { return }
                if left > 0 { memmove(base, base + stagedStart, left * sampleBytes) }
                stagedStart = 0
                stagedEnd = left
            }
            guard let base = staging.baseAddress else { return }
            if let data {
                memcpy(base + stagedEnd, data, samples * sampleBytes)
            } else {
                (base + stagedEnd).update(repeating: 0, count: samples)
            }
            stagedEnd += samples
            pa_stream_drop(stream)
            lastAudioNanoseconds = MonotonicTime.nanoseconds()
        }
    }

    /// Copies staged audio into `buffer` from `offset`; returns the samples copied.
    private func takeStaged(into buffer: UnsafeMutableBufferPointer<Int16>, at offset: Int) -> Int {
        let count = min(buffer.count - offset, stagedEnd - stagedStart)
        guard count > 0, let target = buffer.baseAddress, let source = staging.baseAddress else { return 0 }
        (target + offset).update(from: source + stagedStart, count: count)
        stagedStart += count
        if stagedStart == stagedEnd {
            stagedStart = 0
            stagedEnd = 0
        }
        return count
    }

    private static func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}

extension AudioFormat {
    /// Nanoseconds of `samples` interleaved samples.
    fileprivate func duration(samples: Int) -> UInt64 {
        UInt64(max(samples, 0)) * 1_000_000_000 / UInt64(max(sampleRate * channels, 1))
    }
}
