/// Why browsing for gateways failed.
public enum DiscoveryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The Avahi daemon is not reachable (not installed, not running, no system bus).
    case avahiUnavailable(String)
    /// Avahi refused a browse (bad domain or service type).
    case browseFailed(String)

    /// One line.
    public var description: String {
        switch self {
        case .avahiUnavailable(let why): "Avahi is not available: \(why)"
        case .browseFailed(let why): "DNS-SD browse failed: \(why)"
        }
    }
}
