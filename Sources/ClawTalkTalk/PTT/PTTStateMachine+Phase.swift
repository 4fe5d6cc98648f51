extension PTTStateMachine {
    /// The state with what the machine remembers in it.
    enum Phase: Sendable, Hashable {
        case idle
        case starting(Starting)
        case capturing(Capturing)
        case finalizing(Finalizing)
    }

    /// Opening the microphone; `start`s and `stop`s wait for it.
    struct Starting: Sendable, Hashable {
        var captureId: String
        var mode: Mode
        var origin: Origin
        var startWaiters: [RequestID]
        var onceWaiter: RequestID?
        var stopWaiters: [RequestID]
        /// The node connection that sent the start closed while the microphone was opening.
        var controllerGone = false
    }

    /// Capturing; a `once` capture has the request its result goes to.
    struct Capturing: Sendable, Hashable {
        var captureId: String
        var mode: Mode
        var origin: Origin
        var onceWaiter: RequestID?
        /// Speech is going on (since ``Event/speechStarted(captureId:)``, until the next pause).
        var speaking = false
        /// The controller is gone: the capture ends at its next pause or the loss cap.
        var controllerGone = false
    }

    /// Transcribing (``delivering`` nil) or delivering the transcript.
    struct Finalizing: Sendable, Hashable {
        var captureId: String
        var origin: Origin
        var waiters: [RequestID]
        var delivering: String?
        var queued: [Queued]
        /// Ended because its controller is gone: the result is kept for a later `stop`.
        var controllerGone: Bool
    }

    /// The result of the last capture that ended because its controller was gone, answered to
    /// a later `stop` or `cancel` (commands carry no capture id, talk.md §2.2, so the newest is the one
    /// meant) until another capture begins.
    struct Ended: Sendable, Hashable {
        var captureId: String
        var response: PTTResponse
    }

    /// A `start` or `once` that arrived while finalizing.
    struct Queued: Sendable, Hashable {
        var command: Command
        var request: RequestID
        var origin: Origin
    }
}
