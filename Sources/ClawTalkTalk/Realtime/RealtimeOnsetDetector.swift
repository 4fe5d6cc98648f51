/// The project's barge-in onset detector (talk.md §5.5) for realtime output: the speaking phase of
/// a ``TalkModeStateMachine`` (its hold-off while the canceller converges, the onset length and
/// level over the residual echo, the double-talk test), reporting the moment it would pause the
/// reply. A short sound it holds back is no onset. Pure: frames in, a verdict out.
public struct RealtimeOnsetDetector: Sendable {
    private let configuration: TalkModeConfiguration
    private var machine: TalkModeStateMachine
    private var armed = false

    /// A detector with Talk's barge-in settings (`configuration`; barge-in forced on).
    public init(configuration: TalkModeConfiguration = TalkModeConfiguration()) {
        var configuration = configuration
        configuration.bargeIn = .enabled
        configuration.idleTimeout = nil
        self.configuration = configuration
        machine = TalkModeStateMachine(configuration: configuration)
    }

    /// Whether output is being watched.
    public var isArmed: Bool { armed }

    /// Output started: watch from here (the hold-off counts from the first frame with echo).
    public mutating func outputStarted() {
        machine = TalkModeStateMachine(configuration: configuration)
        _ = machine.handle(.enter(.local))
        _ = machine.handle(.replyStarted)
        armed = true
    }

    /// Output ended or was stopped: frames no longer count.
    public mutating func outputEnded() {
        armed = false
    }

    /// One 20 ms frame of the echo-cancelled capture; true at the onset of speech over the output
    /// (then the detector disarms until ``outputStarted()``).
    public mutating func frame(
        isSpeech: Bool, seconds: Double, rms: Double, echo: Bool?, reference: EchoReference?
    ) -> Bool {
        guard armed else { return false }
        let actions = machine.handle(
            .audio(isSpeech: isSpeech, seconds: seconds, rms: rms, echo: echo, reference: reference))
        guard actions.contains(.pauseReply(true)) else { return false }
        armed = false
        return true
    }
}
