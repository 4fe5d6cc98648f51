/// Desktop notifications (`notify.*`).
public struct NotifySettings: Sendable, Equatable {
    /// Show freedesktop notifications for pairing requests, wake and errors. Default false.
    public var enabled = false

    /// Creates the defaults.
    public init() {}
}

/// DNS-SD gateway discovery (`discovery.*`).
public struct DiscoverySettings: Sendable, Equatable {
    /// A wide-area DNS-SD domain browsed besides `local.` (e.g. a tailnet's
    /// `openclaw.internal.`). Default nil: `local.` only.
    public var wideAreaDomain: String? = nil

    /// Creates the defaults.
    public init() {}
}
