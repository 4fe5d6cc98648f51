import ClawTalkProtocol
import Foundation

/// Talk mode as a pure value (talk.md §5, §10): events in, actions out, no clock (time
/// is counted in seconds of captured audio). ``TalkModeController`` performs the actions.
///
/// - **Loop:** `idle → listening → thinking → speaking → listening …`. A turn ends when
///   silence follows speech for ``TalkModeConfiguration/silenceWindow``; an empty transcript
///   returns to listening without sending; a transcript that gets no reply (outbox, failure)
///   also returns to listening.
/// - **Entry/exit:** local command, wake (optionally with the first transcript), the gateway's
///   `talk.mode` event, the idle timeout. Entering suspends voice wake, leaving resumes it.
/// - **`talk.mode` reports** `{enabled, phase}` on every change, `{enabled:false}` on exit; a
///   change made by a gateway event is never reported back, and the gateway's broadcast of our
///   own report is recognised and ignored. After `FORBIDDEN` nothing is sent until the next
///   operator `hello-ok`.
/// - **Barge-in** (``BargeInMode/enabled``): while speaking, capture runs; ≥ 0.15 s of speech
///   pauses playback at once and asks for a transcription; ``BargeInDecision`` confirms → stop
///   with the interruption recorded, keep the capture as the next turn; a refusal resumes the
///   reply, and so does the end of the 1 s window (a later confirmation still stops it; a new
///   onset while a slow check runs pauses again and has the verdict ask again; if the voice
///   stopped meanwhile, the turn ends at once, cut one silence window after the voice; if the
///   reply ended meanwhile, the verdict still decides whether the speech is the next turn).
///   In half-duplex nothing is captured while speaking.
/// - **Push-to-talk** pauses Talk (capture closed, nothing started) until it resumes.
/// - **Idle timeout:** a listening phase without speech for ``TalkModeConfiguration/idleTimeout``
///   ends Talk.
public struct TalkModeStateMachine: Sendable {
    /// Timings and policies.
    public private(set) var configuration: TalkModeConfiguration
    /// The current phase.
    public internal(set) var phase = Phase.idle
    /// Push-to-talk holds the microphone.
    public private(set) var isPaused = false
    /// `talk.mode` reports may be sent (false after `FORBIDDEN` on this operator socket).
    public private(set) var isReporting = true
    /// A capture is open.
    public private(set) var isCapturing = false
    /// Playback is paused at a barge-in onset until the check decides.
    public var isReplyPaused: Bool { replyPause != nil }
    /// A barge-in check (transcription) is running.
    public var isCheckPending: Bool { checkPending }
    /// The mean level (RMS) of the speaking phase's frames while not paused: the residual echo
    /// an onset must stand out from (``BargeInDetector/residualEchoLevel``).
    public var residualLevel: Double { bargeInDetector.residualEchoLevel }

    var step = ThinkingStep.transcribing
    var listen = ListenCounters()
    var speak = SpeakCounters()
    /// The onset decision while speaking: the evidence of a voice over the reply's echo.
    public internal(set) var bargeInDetector: BargeInDetector
    /// The double-talk test's echo path, learned over the replies of this Talk session.
    public var echoPath: EchoPathEstimate { bargeInDetector.echoPath }
    var replyPause: PauseState?
    var checkPending = false
    var spokenText = ""
    var lastReported: TalkModeParams?
    var expectedEchoes: [TalkModeParams] = []

    /// Where a turn is while thinking.
    enum ThinkingStep {
        case transcribing, delivering, awaitingReply
    }

    /// Counters of the listening phase.
    struct ListenCounters {
        var heardSpeech = false
        var speech = 0.0
        var silence = 0.0
        var utterance = 0.0
        var idle = 0.0
        /// The speculation asked for the current pause (nil: none, or speech went on since).
        var speculation: Int?
    }

    /// Number of the last ``Action/speculate(_:)``.
    var speculations = 0

    /// At most this many own reports are remembered to recognise their broadcasts.
    static let echoMemory = 8

    /// A machine in ``Phase/idle``.
    public init(configuration: TalkModeConfiguration = TalkModeConfiguration()) {
        self.configuration = configuration
        bargeInDetector = BargeInDetector(configuration: configuration)
    }

    /// Talk mode is on.
    public var isEnabled: Bool { phase != .idle }

    /// Applies `event` and returns the actions to perform, in order.
    public mutating func handle(_ event: Event) -> [Action] {
        var out: [Action] = []
        switch event {
        case .enter(let source, let first): enter(source, first: first, &out)
        case .exit(let source): exit(source, &out)
        case .audio(let isSpeech, let seconds, let rms, let silence, let echo, let reference):
            audio(isSpeech, seconds, rms, silence, echo: echo, reference: reference, &out)
        case .captureLost: captureLost(&out)
        case .transcribed(let text): transcribed(text, &out)
        case .delivered(let expectsReply): delivered(expectsReply, &out)
        case .replySegment(let text): if isEnabled { spokenText += (spokenText.isEmpty ? "" : " ") + text }
        case .replyStarted: replyStarted(&out)
        case .replyFinished: replyFinished(&out)
        case .gatewayMode(let enabled, let phase): gatewayMode(enabled, phase, &out)
        case .operatorConnected: operatorConnected(&out)
        case .reportFailed(let params, let forbidden): reportFailed(params, forbidden)
        case .pttPause: pause(&out)
        case .pttResume: resume(&out)
        case .bargeInTranscript(let text, let confidence): bargeInTranscript(text, confidence, &out)
        case .setBargeIn(let mode): configuration.bargeIn = mode
        case .setIdleTimeout(let timeout): configuration.idleTimeout = timeout
        case .turnComplete(let speculation): turnComplete(speculation, &out)
        }
        return out
    }

    // MARK: - Entry and exit

    private mutating func enter(_ source: Source, first: String?, _ out: inout [Action]) {
        let transcript = first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if isEnabled {
            // Already on: a wake command during listening becomes the turn.
            guard phase == .listening, !transcript.isEmpty, !isPaused else { return }
            closeCapture(&out)
            send(transcript, &out)
            report(&out)
            return
        }
        out.append(.resetSpeechSession)
        out.append(.claimMicrophone)
        spokenText = ""
        if transcript.isEmpty {
            beginListening(&out)
        } else {
            send(transcript, &out)
        }
        if source == .gateway {
            // Applying the gateway's state is not reported back (no echo).
            lastReported = TalkModeParams(enabled: true, phase: phase.reported?.rawValue)
        } else {
            report(&out)
        }
    }

    private mutating func exit(_ source: Source, _ out: inout [Action]) {
        guard isEnabled else { return }
        endBargeIn(&out)
        closeCapture(&out)
        if phase == .speaking { out.append(.stopSpeech(recordInterruption: false)) }
        phase = .idle
        spokenText = ""
        if source == .gateway {
            lastReported = TalkModeParams(enabled: false)
        } else {
            report(&out)
        }
        // Push-to-talk may still hold the microphone: its owner decides who listens next.
        out.append(.releaseMicrophone)
        isPaused = false
    }

    // MARK: - Audio

    private mutating func audio(
        _ isSpeech: Bool, _ seconds: Double, _ rms: Double?, _ silence: Double?, echo: Bool?, reference: EchoReference?,
        _ out: inout [Action]
    ) {
        guard isEnabled, !isPaused, isCapturing else { return }
        switch phase {
        case .listening: listening(isSpeech, seconds, &out)
        case .speaking: speaking(isSpeech, seconds, rms, silence: silence, echo: echo, reference: reference, &out)
        case .idle, .thinking: break
        }
    }

    private mutating func listening(_ isSpeech: Bool, _ seconds: Double, _ out: inout [Action]) {
        if isSpeech {
            listen.heardSpeech = true
            listen.speech += seconds
            listen.silence = 0
            listen.idle = 0
            if listen.speculation != nil {
                listen.speculation = nil
                out.append(.dropSpeculation)
            }
        } else if listen.heardSpeech {
            listen.silence += seconds
        } else {
            listen.idle += seconds
        }
        if listen.heardSpeech { listen.utterance += seconds }
        let ended = listen.heardSpeech && listen.silence >= configuration.silenceWindow - 1e-9
        if ended, listen.speech < configuration.minimumSpeech - 1e-9 {
            // Too little speech for a turn: forget it and keep listening (the idle count goes on).
            let idle = listen.idle + listen.utterance
            listen = ListenCounters(idle: idle)
            out.append(.restartTurn)
            return
        }
        if ended || listen.utterance >= configuration.maximumUtterance - 1e-9 {
            finishTurn(&out)
            return
        }
        if let after = configuration.speculateAfter, listen.heardSpeech, listen.speculation == nil,
            listen.silence >= after - 1e-9, listen.speech >= configuration.minimumSpeech - 1e-9
        {
            speculations += 1
            listen.speculation = speculations
            out.append(.speculate(speculations))
        }
        if !listen.heardSpeech, let limit = configuration.idleTimeout, listen.idle >= limit - 1e-9 {
            exit(.idleTimeout, &out)
        }
    }

    /// The turn ended: transcribe it.
    mutating func finishTurn(_ out: inout [Action]) {
        out.append(.finishCapture)
        isCapturing = false
        phase = .thinking
        step = .transcribing
        report(&out)
    }

    /// A speculative transcription called the turn complete: it ends now, unless speech went
    /// on since that speculation was asked.
    private mutating func turnComplete(_ speculation: Int, _ out: inout [Action]) {
        guard phase == .listening, isCapturing, !isPaused, listen.speculation == speculation else { return }
        finishTurn(&out)
    }

    private mutating func captureLost(_ out: inout [Action]) {
        guard isCapturing else { return }
        isCapturing = false
        if phase == .listening {
            exit(.local, &out)
        } else {
            endBargeIn(&out)
            // The reply is over already (its end waited for the check): listen afresh.
            if phase == .speaking, speak.replyEnded { finishReply(&out) }
        }
    }

    // MARK: - Turn

    private mutating func transcribed(_ text: String?, _ out: inout [Action]) {
        guard phase == .thinking, step == .transcribing else { return }
        let transcript = text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if transcript.isEmpty {
            beginListening(&out)
            report(&out)
        } else {
            send(transcript, &out)
        }
    }

    private mutating func delivered(_ expectsReply: Bool, _ out: inout [Action]) {
        guard phase == .thinking, step == .delivering else { return }
        if expectsReply {
            step = .awaitingReply
        } else {
            beginListening(&out)
            report(&out)
        }
    }

    private mutating func replyStarted(_ out: inout [Action]) {
        guard isEnabled, phase == .listening || phase == .thinking else { return }
        closeCapture(&out)
        phase = .speaking
        speak = SpeakCounters()
        bargeInDetector.replyStarted()
        if configuration.bargeIn == .enabled, !isPaused {
            out.append(.startCapture)
            isCapturing = true
        }
        report(&out)
    }

    private mutating func replyFinished(_ out: inout [Action]) {
        switch phase {
        case .speaking:
            if checkPending, isCapturing {
                // Speech over the reply's last words is being checked: its verdict decides
                // (``bargeInTranscript(_:_:_:)``), so an interruption a slow transcriber has not
                // confirmed yet is not dropped with the capture.
                speak.replyEnded = true
                resumeReply(&out)
                return
            }
        case .thinking where step == .awaitingReply: break
        default: return
        }
        finishReply(&out)
    }

    /// The reply is over: a fresh capture listens for the next turn.
    mutating func finishReply(_ out: inout [Action]) {
        endBargeIn(&out)
        closeCapture(&out)
        spokenText = ""
        beginListening(&out)
        report(&out)
    }

    private mutating func send(_ transcript: String, _ out: inout [Action]) {
        out.append(.send(transcript))
        phase = .thinking
        step = .delivering
        spokenText = ""
    }

    mutating func beginListening(_ out: inout [Action]) {
        phase = .listening
        listen = ListenCounters()
        guard !isPaused, !isCapturing else { return }
        out.append(.startCapture)
        isCapturing = true
    }

    private mutating func closeCapture(_ out: inout [Action]) {
        guard isCapturing else { return }
        out.append(.cancelCapture)
        isCapturing = false
    }

    // MARK: - Push-to-talk

    private mutating func pause(_ out: inout [Action]) {
        guard isEnabled, !isPaused else { return }
        isPaused = true
        endBargeIn(&out)
        closeCapture(&out)
        if phase == .speaking, speak.replyEnded {
            // The reply is over; only its pending check kept the phase: listen after the pause.
            phase = .listening
            listen = ListenCounters()
            spokenText = ""
            report(&out)
        }
    }

    private mutating func resume(_ out: inout [Action]) {
        guard isEnabled, isPaused else { return }
        isPaused = false
        switch phase {
        case .listening:
            beginListening(&out)
        case .speaking where configuration.bargeIn == .enabled:
            speak = SpeakCounters()
            bargeInDetector.replyStarted()
            out.append(.startCapture)
            isCapturing = true
        case .idle, .thinking, .speaking:
            break
        }
    }

    // MARK: - Gateway

    private mutating func gatewayMode(_ enabled: Bool, _ phase: String?, _ out: inout [Action]) {
        if let index = expectedEchoes.firstIndex(where: { $0.enabled == enabled && $0.phase == phase }) {
            // The broadcast of our own report.
            expectedEchoes.removeFirst(index + 1)
            return
        }
        guard enabled != isEnabled else { return }
        if enabled {
            enter(.gateway, first: nil, &out)
        } else {
            exit(.gateway, &out)
        }
    }

    private mutating func operatorConnected(_ out: inout [Action]) {
        isReporting = true
        expectedEchoes = []
        lastReported = nil
        if isEnabled { report(&out) }
    }

    private mutating func reportFailed(_ params: TalkModeParams, _ forbidden: Bool) {
        if let index = expectedEchoes.firstIndex(of: params) { expectedEchoes.remove(at: index) }
        if forbidden { isReporting = false }
    }

    /// Reports the current state unless it was the last one reported.
    mutating func report(_ out: inout [Action]) {
        let params = TalkModeParams(enabled: isEnabled, phase: phase.reported?.rawValue)
        guard isReporting, params != lastReported else { return }
        lastReported = params
        expectedEchoes.append(params)
        if expectedEchoes.count > Self.echoMemory { expectedEchoes.removeFirst() }
        out.append(.report(params))
    }
}
