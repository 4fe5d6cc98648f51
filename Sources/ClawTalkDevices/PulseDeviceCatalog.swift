/// Lists and resolves PulseAudio sources and sinks (also served by pipewire-pulse).
///
/// Each call opens a short-lived connection (pa_mainloop + pa_context) on the calling thread,
/// blocks until the answer arrives or ``timeout`` passes, and closes it again. A missing server is
/// reported as ``AudioDeviceError/serverUnavailable(_:)``; the server is never autospawned.
public struct PulseDeviceCatalog: Sendable {
    /// Server address (e.g. `unix:/run/user/1000/pulse/native`), or nil for the default
    /// (`PULSE_SERVER`, then the usual per-user socket).
    public var server: String?
    /// Limit for connecting and listing together (default 3 s).
    public var timeout: Duration

    /// Creates a catalog for `server` (nil = default).
    public init(server: String? = nil, timeout: Duration = .seconds(3)) {
        self.server = server
        self.timeout = timeout
    }

    /// All sources (monitors included) then all sinks, each in server order, defaults marked.
    public func devices() throws -> [AudioDevice] {
        let context = try PulseContext(server: server, timeout: timeout)
        return try context.listDevices()
    }

    /// A connection kept open for repeated listings from one thread (the capture engine's device
    /// watcher): connected on the first listing, dropped on a failure and made again on the next
    /// one. Each listing has the catalog's ``timeout``.
    public final class Connection: CaptureDeviceLister {
        private let catalog: PulseDeviceCatalog
        private var context: PulseContext?

        /// A connection to `catalog`'s server, made on the first listing.
        public init(catalog: PulseDeviceCatalog) {
            self.catalog = catalog
        }

        /// All sources then all sinks, as ``PulseDeviceCatalog/devices()``.
        public func devices() throws -> [AudioDevice] {
            let context = try self.context ?? PulseContext(server: catalog.server, timeout: catalog.timeout)
            do {
                let devices = try context.listDevices(deadline: .now + catalog.timeout)
                self.context = context
                return devices
            } catch {
                self.context = nil
                throw error
            }
        }
    }

    /// The source called `query`: an exact name, else a case-insensitive description.
    public func resolve(source query: String) throws -> AudioDevice {
        try Self.resolve(query, kind: .source, in: devices())
    }

    /// The sink called `query`: an exact name, else a case-insensitive description.
    public func resolve(sink query: String) throws -> AudioDevice {
        try Self.resolve(query, kind: .sink, in: devices())
    }

    /// Picks the device of `kind` matching `query` by exact name, else by case-insensitive
    /// description (preferring a non-monitor when several match); throws
    /// ``AudioDeviceError/notFound(name:available:)`` listing the names of that kind otherwise.
    public static func resolve(_ query: String, kind: AudioDevice.Kind, in devices: [AudioDevice]) throws
        -> AudioDevice
    {
        let candidates = devices.filter { $0.kind == kind }
        if let exact = candidates.first(where: { $0.name == query }) { return exact }
        let folded = query.lowercased()
        let described = candidates.filter { $0.description.lowercased() == folded }
        if let match = described.first(where: { !$0.isMonitor }) ?? described.first { return match }
        throw AudioDeviceError.notFound(name: query, available: candidates.map(\.name))
    }
}
