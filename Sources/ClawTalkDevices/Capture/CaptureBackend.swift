public import ClawTalkAudio

/// Where a ``CaptureEngine`` gets streams and the device list: PulseAudio in production
/// (``PulseCaptureBackend``), a fake in tests.
public protocol CaptureBackend: Sendable {
    /// Opens a capture stream of `format` on `source` (nil = the default source). Called on the
    /// engine's capture thread, which then owns the stream. While the stream opens, and while a
    /// read waits for audio, `shouldStop` is checked at least every 50 ms: opening then throws
    /// and a read returns early, so a stop never waits for a sound server that sends nothing.
    func openStream(
        source: String?, format: AudioFormat, frameMilliseconds: Int, shouldStop: @escaping @Sendable () -> Bool
    ) throws -> any CaptureInputStream
    /// The server's devices (only sources are used). Called from ``CaptureEngine/start()``, never
    /// from the capture thread.
    func devices() throws -> [AudioDevice]
    /// What the engine's device watcher lists with, every check interval for the engine's life,
    /// on its own thread. The default lists through ``devices()``; PulseAudio keeps one connection.
    func makeDeviceLister() -> any CaptureDeviceLister
}

/// Lists devices again and again from one thread (the capture engine's device watcher).
public protocol CaptureDeviceLister: AnyObject {
    /// The server's devices now; throws when they cannot be listed.
    func devices() throws -> [AudioDevice]
}

extension CaptureBackend {
    /// A lister that calls ``devices()`` each time.
    public func makeDeviceLister() -> any CaptureDeviceLister { ListingThroughBackend(backend: self) }
}

/// The default ``CaptureDeviceLister``: the backend's ``CaptureBackend/devices()`` each time.
private final class ListingThroughBackend: CaptureDeviceLister {
    let backend: any CaptureBackend
    init(backend: any CaptureBackend) { self.backend = backend }
    func devices() throws -> [AudioDevice] { try backend.devices() }
}

/// A blocking capture stream, used by one thread from open to close.
public protocol CaptureInputStream: AnyObject {
    /// Blocks until `buffer` is filled, or returns early once the stream's stop check says so;
    /// throws when the device fails or goes away.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws
    /// Audio already captured but not yet returned by ``read(into:)``, in nanoseconds, as of the
    /// last read: the last sample that read returned was captured this long before it returned.
    /// The capture loop subtracts it from its timestamps, so a thread that woke late (a busy
    /// machine) still stamps each frame with when it was captured, not when it was read.
    var backlogNanoseconds: UInt64 { get }
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
    public func openStream(
        source: String?, format: AudioFormat, frameMilliseconds: Int, shouldStop: @escaping @Sendable () -> Bool
    ) throws -> any CaptureInputStream {
        try PulseCaptureStream(
            format: format, device: source, server: catalog.server, fragmentMilliseconds: frameMilliseconds,
            streamName: streamName, pacedReads: pacedReads, shouldStop: shouldStop)
    }

    /// The catalog's device list.
    public func devices() throws -> [AudioDevice] {
        try catalog.devices()
    }

    /// One connection kept for every listing (``PulseDeviceCatalog/Connection``): a new client
    /// connection maps and unmaps its shared-memory pool, which cost the idle node more than all
    /// of its audio work when the watcher reconnected every 2 s.
    public func makeDeviceLister() -> any CaptureDeviceLister {
        PulseDeviceCatalog.Connection(catalog: catalog)
    }
}
