/// `tick {ts}`, the Gateway's liveness broadcast every `policy.tickIntervalMs`.
public struct TickEvent: Sendable, Hashable, Encodable {
    /// Gateway clock, milliseconds since the epoch, when sent as an integer.
    public var ts: Int64?

    /// A tick.
    public init(ts: Int64?) {
        self.ts = ts
    }

    /// Reads the payload leniently (a tick without payload is still a tick).
    public init(json: WireJSON?) {
        self.init(ts: json?["ts"]?.int64Value)
    }
}
