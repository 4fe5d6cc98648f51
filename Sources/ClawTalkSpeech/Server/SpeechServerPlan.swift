public import ClawTalkSupport

/// The supervisor's decisions, without processes or sockets: what to do about the server at
/// its address, and how long to wait before a restart.
public enum SpeechServerPlan {
    /// What to do after a probe of the configured address.
    public enum Decision: Sendable, Equatable {
        /// Use the server that answered; start nothing.
        case useExternal
        /// Start (or restart) the installed server at the address.
        case launch
        /// Nothing to use or start now (the reason, for the status and one log line); look again
        /// later, since a server may appear.
        case none(String)
        /// `stt.server` is `off`: nothing to start or watch.
        case stop
    }

    /// What to do when `mode` is set, the address is the node's `own` private socket (nothing
    /// else is ever used there, so it is not probed), a probe `answered` or not, the address
    /// `isLocal` (a socket or loopback address this machine can serve) and the server is
    /// `installed` (nil, or why not).
    public static func decide(
        mode: SpeechServerMode, own: Bool = false, answered: Bool, isLocal: Bool, notInstalled: String?
    ) -> Decision {
        switch mode {
        case .off:
            return .stop
        case .external:
            return answered ? .useExternal : .none("no server answers (stt.server is external)")
        case .auto:
            if own { return notInstalled.map { .none($0) } ?? .launch }
            if answered { return .useExternal }
            guard isLocal else { return .none("no server answers, and the address is not on this machine") }
            if let notInstalled { return .none(notInstalled) }
            return .launch
        }
    }
}

/// Delays between restarts of a server that keeps dying: 1 s, 2 s, 4 s … up to a minute, back
/// to 1 s once a run lasted ``stableRun``.
public struct RestartBackoff: Sendable, Equatable {
    /// The first delay.
    public static let first: Duration = .seconds(1)
    /// The longest delay.
    public static let longest: Duration = .seconds(60)
    /// A run at least this long resets the delay.
    public static let stableRun: Duration = .seconds(60)

    private var next = RestartBackoff.first

    /// The first delay next.
    public init() {}

    /// The delay before the next start, after a run (or attempt) that lasted `uptime`.
    public mutating func delay(after uptime: Duration) -> Duration {
        if uptime >= Self.stableRun { next = Self.first }
        let delay = next
        next = min(next * 2, Self.longest)
        return delay
    }
}
