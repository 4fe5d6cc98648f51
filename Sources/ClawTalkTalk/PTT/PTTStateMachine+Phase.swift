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
        var startWaiters: [RequestID]
        var onceWaiter: RequestID?
        var stopWaiters: [RequestID]
    }

    /// Capturing; a `once` capture has the request its result goes to.
    struct Capturing: Sendable, Hashable {
        var captureId: String
        var mode: Mode
        var onceWaiter: RequestID?
    }

    /// Transcribing (``delivering`` nil) or delivering the transcript.
    struct Finalizing: Sendable, Hashable {
        var captureId: String
        var waiters: [RequestID]
        var delivering: String?
        var queued: [Queued]
    }

    /// A `start` or `once` that arrived while finalizing.
    struct Queued: Sendable, Hashable {
        var command: Command
        var request: RequestID
    }
}
