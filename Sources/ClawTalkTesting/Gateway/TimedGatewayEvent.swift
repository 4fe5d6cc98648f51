/// One harness event and the instant the gateway observed it (``TestGateway/timedEvents``):
/// for a `chat.send` or a `voice.transcript` node event, when the frame had arrived and passed
/// the gateway's checks. Benchmarks time a voice turn up to here.
public struct TimedGatewayEvent: Sendable, Equatable {
    /// The event, as in ``TestGateway/observedEvents``.
    public var event: TestGatewayEvent
    /// When it was published (monotonic, `ContinuousClock`).
    public var at: ContinuousClock.Instant

    /// An event observed at `at`.
    public init(event: TestGatewayEvent, at: ContinuousClock.Instant) {
        self.event = event
        self.at = at
    }
}
