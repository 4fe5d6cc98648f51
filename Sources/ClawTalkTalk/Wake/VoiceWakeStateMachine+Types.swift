public import ClawTalkSpeech

extension VoiceWakeStateMachine {
    /// Durations of talk.md §6.4.
    public struct Timing: Sendable, Hashable {
        /// Silence that ends a command once speech beyond the trigger was heard (2.0 s).
        public var silenceAfterCommand: Duration
        /// Silence that ends a capture in which only the trigger was heard (5.0 s).
        public var silenceAfterTriggerOnly: Duration
        /// Longest capture (120 s).
        public var hardStop: Duration
        /// After a capture ends, stage-1 hits are ignored this long (350 ms).
        public var cooldown: Duration
        /// After a capture ends, listening restarts with a clean buffer after this long (0.7 s).
        public var restartDelay: Duration
        /// After a recognition error, listening restarts after this long (700 ms).
        public var errorRestartDelay: Duration

        /// The contract's values by default.
        public init(
            silenceAfterCommand: Duration = .seconds(2), silenceAfterTriggerOnly: Duration = .seconds(5),
            hardStop: Duration = .seconds(120), cooldown: Duration = .milliseconds(350),
            restartDelay: Duration = .milliseconds(700), errorRestartDelay: Duration = .milliseconds(700)
        ) {
            self.silenceAfterCommand = silenceAfterCommand
            self.silenceAfterTriggerOnly = silenceAfterTriggerOnly
            self.hardStop = hardStop
            self.cooldown = cooldown
            self.restartDelay = restartDelay
            self.errorRestartDelay = errorRestartDelay
        }
    }

    /// A command being captured after an accepted trigger.
    public struct Capture: Sendable, Hashable {
        /// The trigger that started it.
        public var trigger: String
        /// The command text so far (what follows the trigger).
        public var command: String
        /// True once speech beyond the trigger was heard (command text or speech frames).
        public var heardBeyondTrigger: Bool
        /// Time since the capture started.
        public var elapsed: Duration
        /// Time since the last speech (or transcript change).
        public var silence: Duration
    }

    /// Where voice wake is.
    public enum State: Sendable, Hashable {
        /// Wake is disabled.
        case stopped
        /// Stage 1 listens for triggers.
        case listening
        /// A stage-1 hit waits for the transcript verifier.
        case verifying(WakeHit)
        /// A trigger was accepted; the command is being captured.
        case capturing(Capture)
        /// The capture ended; waiting for the final command transcript.
        case finalizing(Capture)
        /// A capture finished; listening restarts after ``Timing/restartDelay`` (time since the end).
        case coolingDown(Duration)
        /// A recognition error; listening restarts after ``Timing/errorRestartDelay`` (time since the error).
        case recovering(Duration)
        /// Push-to-talk or Talk mode holds the microphone (``VoiceWakeStateMachine/leases`` > 0).
        case suspended
    }

    /// Inputs. Time enters only through the durations carried by ``audio(_:isSpeech:)`` and
    /// ``elapsed(_:)``.
    public enum Event: Sendable, Hashable {
        /// Wake was enabled (setting, or the node connected).
        case enable
        /// Wake was disabled.
        case disable
        /// Push-to-talk or Talk mode takes the microphone (leases nest).
        case suspend
        /// A ``suspend`` lease was returned.
        case resume
        /// Stage 1 heard a trigger.
        case stageOneHit(WakeHit)
        /// The verifier accepted the trigger; the occurrence carries the command heard so far.
        case verified(TriggerOccurrence)
        /// The verifier did not find the trigger (or the pause rule rejected it).
        case verificationRejected
        /// Speech recognition (verifier or command transcription) failed.
        case recognitionFailed
        /// A block of captured audio of this length, with the energy gate's verdict.
        case audio(Duration, isSpeech: Bool)
        /// Time passed without audio (timers while the capture source is paused).
        case elapsed(Duration)
        /// The command transcript (text after the trigger) so far, or the final one.
        case commandTranscript(String, isFinal: Bool)
    }

    /// Chimes of talk.md §6.5.
    public enum Chime: String, Sendable, Hashable {
        /// Played when a trigger is accepted.
        case trigger
        /// Played when a non-empty command is sent.
        case send
    }

    /// Outputs, in the order they should be performed.
    public enum Action: Sendable, Hashable {
        /// Start (or restart) stage 1; with `cleanBuffer` any buffered audio is dropped first.
        case startListening(cleanBuffer: Bool)
        /// Stop stage 1.
        case stopListening
        /// Run the transcript verifier on the audio around the hit.
        case verify(WakeHit)
        /// Play a chime.
        case playChime(Chime)
        /// Start transcribing the command (with pre-roll); `command` is what was already heard.
        case startCapture(trigger: String, command: String)
        /// Ask the transcriber for the final command transcript.
        case finishCapture
        /// Drop the capture without sending anything.
        case cancelCapture
        /// Send the command (talk.md §3).
        case send(trigger: String, command: String)
    }
}
