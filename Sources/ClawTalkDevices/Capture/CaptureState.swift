/// Where a ``CaptureEngine`` is getting its audio from, if anywhere.
public enum CaptureState: Sendable, Equatable, CustomStringConvertible {
    /// Not started yet.
    case idle
    /// Capturing from `device`: the chosen source's name, or nil for the server's default source
    /// when none was chosen.
    case capturing(device: String?)
    /// The chosen source is gone (unplugged or failing): capturing from the server's default
    /// source until the chosen one is listed again.
    case fallback(reason: String)
    /// No source could be opened; the engine retries with backoff (0.5 s doubling to 2 s).
    case unavailable(reason: String)
    /// Stopped for good.
    case stopped

    /// One line, e.g. `capturing from 'vmic'`.
    public var description: String {
        switch self {
        case .idle: return "idle"
        case .capturing(let device): return "capturing from \(device.map { "'\($0)'" } ?? "the default source")"
        case .fallback(let reason): return "capturing from the default source (fallback: \(reason))"
        case .unavailable(let reason): return "no capture source (retrying): \(reason)"
        case .stopped: return "stopped"
        }
    }
}
