public import ClawTalkProtocol

extension TalkModeStateMachine {
    /// Where Talk mode is (talk.md §5.1).
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        /// Talk mode is off (voice wake listens).
        case idle
        /// Capturing the user's turn.
        case listening
        /// The turn ended: it is being transcribed and sent, and the reply awaited.
        case thinking
        /// The reply is being spoken.
        case speaking

        /// The `talk.mode` phase reported for this phase (nil for ``idle``).
        public var reported: TalkPhase? {
            switch self {
            case .idle: nil
            case .listening: .listening
            case .thinking: .thinking
            case .speaking: .speaking
            }
        }
    }

    /// Who turned Talk mode on or off.
    public enum Source: String, Sendable, Hashable, CaseIterable {
        /// `clawtalk talk on|off|toggle`, the hotkey or D-Bus.
        case local
        /// A wake word with `wake.startsTalk`.
        case wake
        /// A `talk.mode` event from the gateway (e.g. the WebChat toggle).
        case gateway
        /// The idle timeout (`talk.idleTimeoutS`).
        case idleTimeout
        /// The service is shutting down.
        case shutdown
    }

    /// How a barge-in may happen while the reply is spoken (talk.md §5.5).
    public enum BargeInMode: String, Sendable, Hashable {
        /// Capture keeps running during playback; speech that is not the echo stops it.
        case enabled
        /// Half-duplex: capture is ignored during playback (and the front end's 300 ms tail).
        case halfDuplex
    }

    /// What happens to the machine.
    public enum Event: Sendable, Hashable {
        /// Turn Talk mode on; with `firstTranscript` (wake command) the first turn is sent at once.
        case enter(Source, firstTranscript: String? = nil)
        /// Turn Talk mode off.
        case exit(Source)
        /// One capture frame of `seconds` with the front end's speech decision (VAD; false
        /// during echo in half-duplex) and its RMS level (full scale 1.0; nil: not known, no
        /// level rule while speaking). While the reply is paused, `silence` is how long playback had
        /// actually been silent when the frame was captured (0: not silent yet; nil: not known, the
        /// pause's settle is counted in captured audio). `echo` says whether the reply's sound may be
        /// in the frame (nil: not known); while speaking, the hold-off then counts from the first
        /// frame with it, and the residual level only over such frames. `reference` (the raw
        /// capture's level and the far end's) feeds the double-talk test (nil: no test).
        case audio(
            isSpeech: Bool, seconds: Double, rms: Double? = nil, silence: Double? = nil, echo: Bool? = nil,
            reference: EchoReference? = nil)
        /// The capture of the turn could not be opened or ended by itself.
        case captureLost
        /// The turn's transcription (nil or blank: nothing was said).
        case transcribed(String?)
        /// The transcript was handed over; `expectsReply` is false when it only went to the
        /// outbox or failed, so no reply will come.
        case delivered(expectsReply: Bool)
        /// A segment of a reply was spoken or queued for speech (its text extends the echo guard).
        case replySegment(String)
        /// The first audio of a reply is playing.
        case replyStarted
        /// The reply's speech ended (finished, stopped or failed) or no reply will be spoken.
        case replyFinished
        /// A `talk.mode` event from the gateway.
        case gatewayMode(enabled: Bool, phase: String?)
        /// A new operator socket said `hello-ok`: reporting is allowed again.
        case operatorConnected
        /// A `talk.mode` report was refused; `forbidden` for `FORBIDDEN`/`MISSING_SCOPE`.
        case reportFailed(TalkModeParams, forbidden: Bool)
        /// Push-to-talk took the microphone.
        case pttPause
        /// Push-to-talk gave it back.
        case pttResume
        /// A transcription of speech heard during playback (barge-in confirmation); nil when
        /// it failed or took too long.
        case bargeInTranscript(String?, confidence: Double? = nil)
        /// Effective barge-in permission changed (settings or `talk.config`).
        case setBargeIn(BargeInMode)
        /// Effective idle timeout changed (nil: off).
        case setIdleTimeout(Double?)
        /// The transcription asked by ``Action/speculate(_:)`` with this number called the turn
        /// complete (its end-of-turn probability reached the threshold, and it heard words).
        case turnComplete(speculation: Int)
    }

    /// What the owner must do, in order.
    public enum Action: Sendable, Hashable {
        /// Open a capture for the turn (with the pre-roll).
        case startCapture
        /// Close the capture and drop its audio.
        case cancelCapture
        /// Keep capturing but forget the speech so far (a burst too short to be a turn).
        case restartTurn
        /// Close the capture and transcribe it from just before its first speech; report
        /// ``Event/transcribed(_:)``.
        case finishCapture
        /// The turn's audio ends `seconds` before the newest frame (the echo heard after the
        /// interrupting speech ended, while a slow transcriber confirmed it); precedes
        /// ``finishCapture``.
        case trimTurnEnd(seconds: Double)
        /// The interrupting speech starts `secondsBeforeNewest` before the newest frame's end: at
        /// the later onset whose pause heard a voice, not at the first (the reply's echo);
        /// precedes ``keepInterruptingSpeech``.
        case interruptingSpeechStarts(secondsBeforeNewest: Double)
        /// A barge-in was confirmed: the capture goes on as the next turn, which starts at the
        /// interrupting speech's onset (not at the reply's echo before it).
        case keepInterruptingSpeech
        /// Deliver the transcript (source Talk mode); report ``Event/delivered(expectsReply:)``.
        case send(String)
        /// Stop speech; with `recordInterruption` the next prompt carries the interruption note.
        case stopSpeech(recordInterruption: Bool)
        /// Attenuate playback by 12 dB (barge-in fast path), or restore it.
        case pauseReply(Bool)
        /// Transcribe what was captured since the speech onset during playback; report
        /// ``Event/bargeInTranscript(_:confidence:)``.
        case checkBargeIn
        /// The next ``checkBargeIn`` transcribes audio that ends `seconds` before the newest
        /// frame (a recheck after the voice stopped: its end, not the echo after it).
        case trimCheckEnd(seconds: Double)
        /// Forget a pending barge-in check (its result no longer matters).
        case cancelBargeInCheck
        /// Send operator `talk.mode` with these params.
        case report(TalkModeParams)
        /// Claim the microphone (``MicrophoneClaims/talkEntered()``: voice wake stops listening).
        case claimMicrophone
        /// Release the microphone (``MicrophoneClaims/talkExited()``).
        case releaseMicrophone
        /// A new Talk session began (forget the directive default).
        case resetSpeechSession
        /// The turn paused for ``TalkModeConfiguration/speculateAfter``: transcribe it so far,
        /// with an end-of-turn verdict, ahead of its end; report ``Event/turnComplete(speculation:)``
        /// when the verdict says so. ``finishCapture`` then uses this transcription unless
        /// ``dropSpeculation`` came first.
        case speculate(Int)
        /// Speech went on after a ``speculate(_:)``: cancel that transcription.
        case dropSpeculation
    }
}
