public import ClawTalkSpeech
import Foundation

/// The decisions of voice wake after stage 1 (talk.md §6.3–§6.5): verify a hit, capture
/// the command, finalize, cool down and restart. Events in, actions out; no clock, no I/O.
///
/// ```
/// stopped ─enable─▶ listening ─hit─▶ verifying ─verified─▶ capturing ─silence/120 s─▶ finalizing
///                      ▲   └──hit (no verifier)──────────────────▲                       │final
///                      └──────── restartDelay (0.7 s) ─── coolingDown ◀─────────────────┘
/// ```
///
/// - Accepting a trigger plays the trigger chime, stops stage 1 and starts the capture.
/// - A capture ends after 2.0 s of silence once speech beyond the trigger was heard (command
///   text, a transcript change or a speech frame), after 5.0 s if only the trigger was heard,
///   and after 120 s in any case.
/// - The final command is sent with the send chime only when it is non-empty.
/// - After a capture, stage 1 restarts after 0.7 s with a clean buffer; hits within 350 ms of
///   the end are ignored. Command transcripts arriving before the restart are late copies of
///   the utterance just handled and are ignored (talk.md §6.3.5); the same command after a new trigger
///   is sent again.
/// - A recognition error drops the capture and restarts stage 1 after 700 ms.
/// - ``Event/suspend`` (push-to-talk, Talk) stops everything until every lease is returned.
public struct VoiceWakeStateMachine: Sendable, Hashable {
    /// The current state.
    public private(set) var state: State
    /// Timings in use.
    public let timing: Timing
    /// Whether stage-1 hits go to the verifier first (false: stage-1-only mode).
    public let verifiesHits: Bool
    /// Whether wake is enabled (also while suspended).
    public private(set) var isEnabled = false
    /// Outstanding ``Event/suspend`` leases.
    public private(set) var leases = 0
    /// Time since the last capture ended (nil before the first); hits are ignored while it is
    /// below ``Timing/cooldown``.
    public private(set) var sinceCaptureEnded: Duration?
    /// The last command sent.
    public private(set) var lastSent: String?

    /// A stopped machine; `verifiesHits` selects two-stage or stage-1-only mode.
    public init(timing: Timing = Timing(), verifiesHits: Bool) {
        self.timing = timing
        self.verifiesHits = verifiesHits
        state = .stopped
    }

    /// Applies one event and returns the actions to perform, in order.
    public mutating func handle(_ event: Event) -> [Action] {
        advanceClock(for: event)
        switch event {
        case .enable: return enable()
        case .disable: return disable()
        case .suspend: return suspend()
        case .resume: return resume()
        default: break
        }
        switch state {
        case .stopped, .suspended: return []
        case .listening: return listening(event)
        case .verifying: return verifying(event)
        case .capturing(let capture): return capturing(capture, event)
        case .finalizing(let capture): return finalizing(capture, event)
        case .coolingDown(let elapsed): return waitingToRestart(elapsed, limit: timing.restartDelay, event)
        case .recovering(let elapsed): return waitingToRestart(elapsed, limit: timing.errorRestartDelay, event)
        }
    }

    // MARK: - Lifecycle events

    private mutating func enable() -> [Action] {
        isEnabled = true
        guard state == .stopped, leases == 0 else { return [] }
        state = .listening
        return [.startListening(cleanBuffer: true)]
    }

    private mutating func disable() -> [Action] {
        isEnabled = false
        let actions = stopActions()
        if state != .suspended { state = .stopped }
        return actions
    }

    private mutating func suspend() -> [Action] {
        leases += 1
        guard leases == 1 else { return [] }
        let actions = stopActions()
        state = .suspended
        return actions
    }

    private mutating func resume() -> [Action] {
        guard leases > 0 else { return [] }
        leases -= 1
        guard leases == 0, state == .suspended else { return [] }
        guard isEnabled else {
            state = .stopped
            return []
        }
        state = .listening
        return [.startListening(cleanBuffer: true)]
    }

    /// What stopping from the current state takes.
    private func stopActions() -> [Action] {
        switch state {
        case .listening, .verifying: [.stopListening]
        case .capturing, .finalizing: [.cancelCapture]
        case .stopped, .suspended, .coolingDown, .recovering: []
        }
    }

    // MARK: - States

    private mutating func listening(_ event: Event) -> [Action] {
        guard case .stageOneHit(let hit) = event else { return [] }
        if let since = sinceCaptureEnded, since < timing.cooldown { return [] }
        if verifiesHits {
            state = .verifying(hit)
            return [.verify(hit)]
        }
        return accept(trigger: hit.trigger, command: "")
    }

    private mutating func verifying(_ event: Event) -> [Action] {
        switch event {
        case .verified(let occurrence):
            return accept(trigger: occurrence.trigger, command: occurrence.command)
        case .verificationRejected:
            state = .listening
            return []
        case .recognitionFailed:
            state = .recovering(.zero)
            return [.stopListening]
        default:
            return []
        }
    }

    private mutating func accept(trigger: String, command: String) -> [Action] {
        let command = Self.trimmed(command)
        state = .capturing(
            Capture(
                trigger: trigger, command: command, heardBeyondTrigger: !command.isEmpty, elapsed: .zero,
                silence: .zero))
        return [.playChime(.trigger), .stopListening, .startCapture(trigger: trigger, command: command)]
    }

    private mutating func capturing(_ capture: Capture, _ event: Event) -> [Action] {
        var capture = capture
        switch event {
        case .audio(let duration, let isSpeech):
            capture.elapsed += duration
            if isSpeech {
                capture.silence = .zero
                capture.heardBeyondTrigger = true
            } else {
                capture.silence += duration
            }
        case .elapsed(let duration):
            capture.elapsed += duration
            capture.silence += duration
        case .commandTranscript(let text, let isFinal):
            let text = Self.trimmed(text)
            if isFinal { return dispatch(text.isEmpty ? capture.command : text, trigger: capture.trigger) }
            if text != capture.command {
                capture.command = text
                capture.silence = .zero
                if !text.isEmpty { capture.heardBeyondTrigger = true }
            }
        case .recognitionFailed:
            state = .recovering(.zero)
            return [.cancelCapture]
        default:
            return []
        }
        let window = capture.heardBeyondTrigger ? timing.silenceAfterCommand : timing.silenceAfterTriggerOnly
        if capture.silence >= window || capture.elapsed >= timing.hardStop {
            state = .finalizing(capture)
            return [.finishCapture]
        }
        state = .capturing(capture)
        return []
    }

    private mutating func finalizing(_ capture: Capture, _ event: Event) -> [Action] {
        switch event {
        case .commandTranscript(let text, isFinal: true):
            let text = Self.trimmed(text)
            return dispatch(text.isEmpty ? capture.command : text, trigger: capture.trigger)
        case .recognitionFailed:
            state = .recovering(.zero)
            return [.cancelCapture]
        default:
            return []
        }
    }

    private mutating func dispatch(_ command: String, trigger: String) -> [Action] {
        state = .coolingDown(.zero)
        sinceCaptureEnded = .zero
        guard !command.isEmpty else { return [] }
        lastSent = command
        return [.playChime(.send), .send(trigger: trigger, command: command)]
    }

    /// Cooling down or recovering: only time matters; anything recognized now belongs to the
    /// utterance just handled (or the failed one) and is ignored.
    private mutating func waitingToRestart(_ elapsed: Duration, limit: Duration, _ event: Event) -> [Action] {
        let step: Duration
        switch event {
        case .audio(let duration, _), .elapsed(let duration): step = duration
        default: return []
        }
        let now = elapsed + step
        if now >= limit {
            state = .listening
            return [.startListening(cleanBuffer: true)]
        }
        if case .coolingDown = state { state = .coolingDown(now) } else { state = .recovering(now) }
        return []
    }

    /// Keeps ``sinceCaptureEnded`` current.
    private mutating func advanceClock(for event: Event) {
        guard let since = sinceCaptureEnded else { return }
        switch event {
        case .audio(let duration, _), .elapsed(let duration): sinceCaptureEnded = since + duration
        default: break
        }
    }

    private static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
