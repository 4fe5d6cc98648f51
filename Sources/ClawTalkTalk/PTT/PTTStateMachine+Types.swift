public import ClawTalkProtocol
public import ClawTalkSupport

extension PTTStateMachine {
    /// Identifies one command awaiting its ``PTTResponse`` (assigned by the caller).
    public typealias RequestID = Int

    /// The four push-to-talk commands (remote `talk.ptt.*` or local hotkey/CLI).
    public enum Command: String, Sendable, Hashable, CaseIterable {
        /// Begin capturing until `stop`.
        case start
        /// Finalize and deliver.
        case stop
        /// Discard.
        case cancel
        /// Capture one utterance with automatic end.
        case once

        /// The command for a `talk.ptt.*` wire command.
        public init(_ command: TalkCommand) {
            switch command {
            case .start: self = .start
            case .stop: self = .stop
            case .cancel: self = .cancel
            case .once: self = .once
            }
        }
    }

    /// How a capture ends: by `stop` (`ptt`) or automatically on silence or the hard cap (`once`).
    public enum Mode: String, Sendable, Hashable {
        /// Push-to-talk: until `stop` (or the safety cap).
        case ptt
        /// One utterance: until silence after speech, or the hard cap.
        case once
    }

    /// Who sent a command, which decides what happens when that controller goes away
    /// (talk.md §2.7, "a capture whose controller is gone").
    public enum Origin: Sendable, Hashable {
        /// The hotkey, the CLI or D-Bus (talk.md §2.8): the controller stays.
        case local
        /// A `talk.ptt.*` invoke that arrived on the node connection's socket `connection` (its
        /// epoch): when that socket closes, nobody is left to send `stop`.
        case gateway(connection: Int)

        /// `local` or `gateway:<epoch>`, for logs.
        public var field: LogValue {
            switch self {
            case .local: "local"
            case .gateway(let connection): .string("gateway:\(connection)")
            }
        }
    }

    /// The observable state (talk.md §2.5).
    public enum State: Sendable, Hashable {
        /// No capture.
        case idle
        /// The microphone is being opened for `captureId`.
        case starting(captureId: String, mode: Mode)
        /// Capturing.
        case capturing(captureId: String, mode: Mode)
        /// Capture stopped; the transcript is being finalized and delivered.
        case finalizing(captureId: String)

        /// The capture this state is about, nil when idle.
        public var captureId: String? {
            switch self {
            case .idle: nil
            case .starting(let id, _), .capturing(let id, _), .finalizing(let id): id
            }
        }
    }

    /// What happens to the machine.
    public enum Event: Sendable, Hashable {
        /// A command arrived from `origin`; its answer is a ``Action/respond(_:_:)`` with the
        /// same request id.
        case command(Command, RequestID, origin: Origin = .local)
        /// The caller of a pending request went away (`node.invoke.cancel`, invoke timeout):
        /// like `cancel` for that request's capture.
        case abandoned(RequestID)
        /// The microphone is open for `captureId`.
        case captureBegan(captureId: String)
        /// The microphone could not be opened for `captureId`.
        case captureFailed(captureId: String, PTTFailure)
        /// Speech began: the first speech of the capture, or the first after a pause.
        case speechStarted(captureId: String)
        /// Silence lasted the window after speech was heard: ends a `once`; a pause of a `ptt`
        /// capture (which ends it when its controller is gone).
        case silenceElapsed(captureId: String)
        /// The node connection's socket `connection` closed: a gateway-started `ptt` capture from
        /// it ends at its next pause, at once if nothing is being said (talk.md §2.7).
        case connectionClosed(connection: Int)
        /// ``PTTConfiguration/controllerLossCap`` (10 s) passed since the controller of a capture
        /// waiting for its pause was lost: it ends now.
        case lossCapReached(captureId: String)
        /// `once` hard cap or `ptt` safety cap.
        case hardCapReached(captureId: String)
        /// The capture's audio stream ended by itself (device gone): finalize what there is.
        case captureEnded(captureId: String)
        /// The final transcription (nil or blank: nothing was said).
        case finalResult(captureId: String, transcript: String?)
        /// No final result in time; the last partial (if any) is used.
        case finalizeTimedOut(captureId: String, lastPartial: String?)
        /// Speech-to-text failed.
        case finalizeFailed(captureId: String, PTTFailure)
        /// The transcript was delivered with this status (`queued` or `offline`).
        case delivered(captureId: String, status: TalkPTTStatus)
        /// The transcript is in the outbox, sent once the gateway is back: `queued` for a
        /// gateway-started capture (that gateway gets it), `offline` for a local one (talk.md §2.4).
        case keptInOutbox(captureId: String)
        /// The node is shutting down: an active capture ends `cancelled`.
        case shutdown
    }

    /// What the owner must do, in order.
    public enum Action: Sendable, Hashable {
        /// Stop TTS playback without recording an interruption.
        case stopSpeech
        /// Take the microphone from Talk mode and voice wake (``MicrophoneClaims/pushToTalkBegan()``).
        case claimMicrophone
        /// Open the microphone (with pre-roll) for `captureId`.
        case beginCapture(captureId: String, mode: Mode)
        /// Answer a pending request.
        case respond(RequestID, PTTResponse)
        /// Stop capturing and transcribe; report ``Event/finalResult(captureId:transcript:)``.
        case finalize(captureId: String)
        /// Stop capturing (or abort the open) and drop the audio.
        case discard(captureId: String)
        /// The capture's controller is gone and it waits for its next pause: report
        /// ``Event/lossCapReached(captureId:)`` after ``PTTConfiguration/controllerLossCap``
        /// unless it ended before.
        case awaitPause(captureId: String)
        /// Deliver the transcript (source push-to-talk); report ``Event/delivered(captureId:status:)``.
        case deliver(captureId: String, transcript: String)
        /// Give the microphone back (``MicrophoneClaims/pushToTalkEnded()``).
        case releaseMicrophone
    }
}
