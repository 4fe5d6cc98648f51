/// Push-to-talk (`ptt.*`).
public struct PTTSettings: Sendable, Equatable {
    /// Safety cap on one local capture, in seconds. Default 120.
    public var maxCaptureS = 120
    /// evdev key held for hold-to-talk (e.g. `KEY_RIGHTALT`, or a numeric code). Default nil: off.
    public var evdevKey: String? = nil
    /// Control socket path. Default nil: `$XDG_RUNTIME_DIR/clawtalk/control.sock`.
    public var controlSocket: String? = nil

    /// Creates the defaults.
    public init() {}

    /// ``maxCaptureS`` as a duration.
    public var maxCapture: Duration { .seconds(maxCaptureS) }

    /// The control socket to use: ``controlSocket`` or the XDG default.
    public func resolvedControlSocket(paths: XDGPaths) -> String {
        controlSocket ?? paths.defaultControlSocket
    }
}
