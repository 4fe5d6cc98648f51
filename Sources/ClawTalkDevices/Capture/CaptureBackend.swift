public import ClawTalkAudio

/// Where a ``CaptureEngine`` gets streams and the device list: PulseAudio in production
/// (``PulseCaptureBackend``), a fake in tests.
public protocol CaptureBackend: Sendable {
    /// Opens a capture stream of `format` on `source` (nil = the default source). Called on the
    /// engine's capture thread, which then owns the stream.
    func openStream(source: String?, format: AudioFormat, frameMilliseconds: Int) throws -> any CaptureInputStream
    /// The server's devices (only sources are used). Called from ``CaptureEngine/start()`` and
    /// from the engine's device watcher thread, never from the capture thread.
    func devices() throws -> [AudioDevice]
}

/// A blocking capture stream, used by one thread from open to close.
public protocol CaptureInputStream: AnyObject {
    /// Blocks until `buffer` is filled; throws when the device fails or goes away.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws
    /// Releases the stream; calling it twice is fine.
    func close()
}

extension PulseCaptureStream: CaptureInputStream {}

/// The production backend: ``PulseCaptureStream``s on the default server and
/// ``PulseDeviceCatalog`` listings.
public struct PulseCaptureBackend: CaptureBackend {
    /// Lists devices (its `server` should match the streams', i.e. nil = default).
    public var catalog: PulseDeviceCatalog
    /// The stream name the server shows (e.g. in pavucontrol).
    public var streamName: String
    /// Paced reads (``PulseCaptureStream/pacedReads``): about one wake-up per frame instead of one
    /// per server packet. The node's microphone uses them; measuring harnesses read promptly.
    public var pacedReads: Bool

    /// Creates the backend.
    public init(
        catalog: PulseDeviceCatalog = PulseDeviceCatalog(), streamName: String = "clawtalk capture",
        pacedReads: Bool = false
    ) {
        self.catalog = catalog
        self.streamName = streamName
        self.pacedReads = pacedReads
    }

    /// Opens a ``PulseCaptureStream`` with `frameMilliseconds` fragments.
    public func openStream(source: String?, format: AudioFormat, frameMilliseconds: Int) throws
        -> any CaptureInputStream
    {
        try PulseCaptureStream(
            format: format, device: source, fragmentMilliseconds: frameMilliseconds, streamName: streamName,
            pacedReads: pacedReads)
    }

    /// The catalog's device list.
    public func devices() throws -> [AudioDevice] {
        try catalog.devices()
    }
}
