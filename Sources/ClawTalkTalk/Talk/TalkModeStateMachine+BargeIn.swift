import ClawTalkProtocol

/// Barge-in while the reply is spoken (talk.md §5.5 and the fast path of talk.md §10).
extension TalkModeStateMachine {
    /// The barge-in evidence: seconds of voice heard in settled pauses since the onset being
    /// checked.
    public var voiceHeardWhilePaused: Double { speak.voiceWhilePaused }
    /// The barge-in evidence: seconds of loud voice heard while the reply was silent after the
    /// latest check's audio.
    public var voiceHeardSinceCheck: Double { speak.voiceSinceCheck }

    /// Counters of the speaking phase (barge-in).
    struct SpeakCounters {
        var elapsed = 0.0
        /// Seconds since the first frame that held the reply's sound (nil: none yet), when the
        /// frames say so (``echoKnown``): the reply's audio reaches the microphone only after
        /// its synthesis and the sink's latency, and the canceller converges from there.
        var sinceEchoStart: Double?
        /// Frames say whether the reply's sound is in them.
        var echoKnown = false
        var levelSum = 0.0
        var levelCount = 0
        var runLevel = 0.0
        var rechecks = 0
        var speechRun = 0.0
        var sinceSpeech = Double.infinity
        /// ``sinceSpeech`` when the pending check was asked for (where its audio ends).
        var sinceSpeechAtCheck = Double.infinity
        /// Speech was heard after the pending check's audio ends (its transcript may be partial).
        var heardSinceCheck = false
        /// The most speech heard in one pause, after ``TalkModeStateMachine/pauseSettle`` (the
        /// reply's echo had died away, so it is a voice), since the onset that started the
        /// current checks. One pause, not a sum: under load the resumed reply's echo pauses it
        /// again and again, and each pause hears a few frames of the detector's smoothing.
        var voiceWhilePaused = 0.0
        /// Seconds from the start of the onset whose pause first heard a voice to the newest
        /// frame's end (nil: none yet), and whether that onset was a later one (a re-pause).
        var voiceOnsetAge: Double?
        var voiceOnsetIsRepause = false
        /// A new onset paused the reply again while the pending check ran.
        var onsetSinceCheck = false
        /// Seconds since the reply last resumed from a pause.
        var sinceResume = Double.infinity
        /// Seconds of loud (voice, not echo) frames after the pending check's audio ends, heard
        /// while the reply was silent (a settled pause, or after the reply ended): over the
        /// playing reply, loud speech may be its resumed echo (a voice there pauses it again).
        var voiceSinceCheck = 0.0
        /// Seconds since the last frame of speech that stood out from the residual echo (the
        /// interrupting voice, not the reply's echo): where an interrupting turn's speech ends.
        var sinceLoud = Double.infinity
        /// The reply's audio ended while a check was pending: the check decides whether the
        /// speech heard over its end is the next turn (nothing said is dropped unjudged).
        var replyEnded = false
        /// Seconds of the current speech run whose raw capture the echo path does not explain
        /// (``EchoPathEstimate/heardBeyondEcho(_:)``): the double-talk evidence of an onset.
        var runBeyondEcho = 0.0
        /// ``runBeyondEcho`` on frames that the test measured (a reference and an audible far end).
        var runMeasuredBeyondEcho = 0.0
        /// Seconds of the current speech run ``EchoPathEstimate/clearMargin`` above the echo (or
        /// with no test): one frame of it is evidence on its own.
        var runClearlyBeyondEcho = 0.0
        /// The highest ``EchoPathEstimate/excess(_:)`` in the current speech run (0: none).
        var runExcess = 0.0
        /// The spectral view of the current run (``EchoPathEstimate/bandExcess(_:)``): its highest
        /// band ratio and unexplained share so far (0: none), for the logs.
        var runBandExcess = 0.0
        var runUnexplained = 0.0
        /// Seconds of the current run that the band view finds beyond the echo
        /// (``EchoPathEstimate/heardInBandsBeyondEcho(_:)``): one frame is evidence on its own.
        var runBandsBeyondEcho = 0.0
        /// The current speech run's loudest frame (the fast onset's level: the smoothed level
        /// lags a voice's rise by several frames).
        var runPeak = 0.0
        /// The current speech run met an onset's length and level but the double-talk test held
        /// it back (counted once per run in ``heldOnsets``).
        var runHeld = false
        /// Speech runs held back by the double-talk test while speaking, since the phase began.
        var heldOnsets = 0
    }

    /// Playback paused after a speech onset (at most ``TalkModeConfiguration/bargeInConfirmWindow``).
    struct PauseState {
        var elapsed = 0.0
        /// A check was asked for in this pause (or one was running when it began).
        var checkRequested = false
        /// Seconds from the start of the speech run that paused the reply to the newest frame's end.
        var onsetAge = 0.0
        /// A new onset paused the reply again while a check of an earlier one ran.
        var isRepause = false
        /// Seconds of speech heard in this pause once it settled.
        var voice = 0.0
    }

    /// Time for the reply's echo to die away at the microphone once playback is silent (the
    /// sink's own buffer, the echo path, the voice detector's hangover). Counted from when
    /// playback actually went silent when the playback reports it (a late pause on a loaded
    /// machine lets echo through well after the onset), else in captured audio from the onset.
    static let pauseSettle = 0.15

    /// Whether a pause whose confirmation window has passed stays: a voice heard over the
    /// silenced reply goes on, or was long enough (a word) and its check is still running. The
    /// reply does not play over a user who is talking, nor come back for the moments before a
    /// slow transcriber confirms them; at most ``voiceHoldLimit`` past the window.
    func holdsForVoice(_ state: PauseState) -> Bool {
        guard state.elapsed < configuration.bargeInConfirmWindow + Self.voiceHoldLimit - 1e-9,
            speak.voiceWhilePaused >= Self.voiceWhilePausedMinimum - 1e-9
        else { return false }
        let voiceGoesOn = speak.sinceSpeech <= BargeInDecision.recentSpeechWindow + 1e-9
        return voiceGoesOn || (checkPending && speak.voiceWhilePaused >= Self.voiceAfterCheck - 1e-9)
    }

    /// Seconds of a speech run that the echo path must fail to explain for the run to be an
    /// onset before ``TalkModeConfiguration/bargeInEchoOnset``: one 20 ms frame
    /// ``EchoPathEstimate/clearMargin`` above the echo, or two ``EchoPathEstimate/margin`` above
    /// in a run whose smoothed level passes too (see ``runHasVoiceEvidence(bySmoothedLevel:)``).
    static let beyondEchoEvidence = 0.02

    /// Whether the current run has the double-talk test's evidence (``beyondEchoEvidence``).
    /// One frame ``EchoPathEstimate/clearMargin`` above the echo is enough, even for an onset by
    /// the run's loudest frame, and so is one frame whose bands the echo does not explain
    /// (``EchoPathEstimate/heardInBandsBeyondEcho(_:)``: a voice as loud as the echo stands out
    /// where the reply is quiet; the slowest pauses waited 40–120 ms for the level evidence). Two frames at ``EchoPathEstimate/margin`` count only when the
    /// run's smoothed level passes its bar as well: a run whose loudest frame alone passes, with
    /// two frames at ×1.45 over the echo and a smoothed level a third of the floor, was the one
    /// false pause in 1.08 h of reading on a loaded machine (bench, 2026-12-05).
    func runHasVoiceEvidence(bySmoothedLevel: Bool) -> Bool {
        speak.runClearlyBeyondEcho >= Self.beyondEchoEvidence - 1e-9
            || speak.runBandsBeyondEcho >= Self.beyondEchoEvidence - 1e-9
            || (bySmoothedLevel && speak.runBeyondEcho >= 2 * Self.beyondEchoEvidence - 1e-9)
    }

    /// How long past ``TalkModeConfiguration/bargeInConfirmWindow`` a voice holds the pause
    /// (8 s): a slower transcriber then lets the reply play on until its verdict, as before.
    /// Whisper on a busy 2-core machine takes 3–7 s for the check: at 4 s, 5 of 50 interruptions
    /// (22 of 50 with one core busy) heard the reply resume before it stopped (bench, 2026-12-04).
    static let voiceHoldLimit = 8.0

    /// Whether a frame of pause `state` was captured after the reply's echo died away.
    static func settled(_ state: PauseState, silence: Double?) -> Bool {
        (silence ?? state.elapsed) > pauseSettle + 1e-9
    }

    mutating func speaking(
        _ isSpeech: Bool, _ seconds: Double, _ rms: Double?, silence: Double? = nil, echo: Bool? = nil,
        reference: EchoReference? = nil, _ out: inout [Action]
    ) {
        guard configuration.bargeIn == .enabled else { return }
        // The echo path is learned on frames of the reply's echo that hold no voice, while no
        // onset is being judged.
        if let reference, !isSpeech, replyPause == nil, !checkPending, echo != false {
            echoPath.learn(reference)
        }
        let replySilent = replySilent(after: seconds, silence: silence)
        speak.elapsed += seconds
        if let echo {
            speak.echoKnown = true
            if let since = speak.sinceEchoStart {
                speak.sinceEchoStart = since + seconds
            } else if echo {
                speak.sinceEchoStart = seconds
            }
        }
        // The reply's first half second at the microphone: the canceller converges.
        let heldOff = speak.echoKnown ? (speak.sinceEchoStart ?? 0) : speak.elapsed
        speak.sinceResume += seconds
        if let age = speak.voiceOnsetAge { speak.voiceOnsetAge = age + seconds }
        if isSpeech, heldOff > configuration.bargeInHoldOff + 1e-9 {
            // The run's recent level (about the last 0.1 s).
            let level = rms ?? 0
            speak.runLevel =
                speak.speechRun == 0 ? level : speak.runLevel + (level - speak.runLevel) * min(1, seconds / 0.1)
            if speak.speechRun == 0 {
                speak.runBeyondEcho = 0
                speak.runMeasuredBeyondEcho = 0
                speak.runClearlyBeyondEcho = 0
                speak.runExcess = 0
                speak.runBandExcess = 0
                speak.runUnexplained = 0
                speak.runBandsBeyondEcho = 0
                speak.runPeak = 0
                speak.runHeld = false
            }
            speak.runPeak = max(speak.runPeak, level)
            if echoPath.heardBeyondEcho(reference) { speak.runBeyondEcho += seconds }
            if let excess = echoPath.excess(reference), excess > EchoPathEstimate.margin {
                speak.runMeasuredBeyondEcho += seconds
            }
            if echoPath.heardClearlyBeyondEcho(reference) { speak.runClearlyBeyondEcho += seconds }
            speak.runExcess = max(speak.runExcess, echoPath.excess(reference) ?? 0)
            if let bands = echoPath.bandExcess(reference) {
                speak.runBandExcess = max(speak.runBandExcess, bands.highest)
                speak.runUnexplained = max(speak.runUnexplained, bands.unexplained)
            }
            if echoPath.heardInBandsBeyondEcho(reference) { speak.runBandsBeyondEcho += seconds }
            speak.speechRun += seconds
            speak.sinceSpeech = 0
            speak.sinceLoud = loudEnough(rms) ? 0 : speak.sinceLoud + seconds
            if checkPending {
                speak.heardSinceCheck = true
                if speak.sinceLoud == 0, replySilent { speak.voiceSinceCheck += seconds }
            }
        } else {
            speak.speechRun = 0
            speak.runLevel = 0
            speak.sinceSpeech += seconds
            speak.sinceLoud += seconds
        }
        // The residual echo's level, without the voice being checked (a slow check would
        // otherwise raise the bar with the very voice it is judging), and without the frames
        // before the reply's sound arrived (their silence would lower it).
        if let rms, replyPause == nil, !checkPending, echo != false {
            speak.levelSum += rms
            speak.levelCount += 1
        }
        // A resumed reply restarts after silence, like a new one: while the canceller
        // re-converges (``TalkModeConfiguration/bargeInHoldOff``) its residual echo starts no onset.
        if speak.sinceResume <= configuration.bargeInHoldOff + 1e-9 { speak.speechRun = 0 }
        if var state = replyPause {
            state.elapsed += seconds
            state.onsetAge += seconds
            // A voice once the pause has silenced the reply's echo: the double-talk evidence.
            if isSpeech, Self.settled(state, silence: silence) {
                state.voice += seconds
                speak.voiceWhilePaused = max(speak.voiceWhilePaused, state.voice)
                if speak.voiceOnsetAge == nil {
                    // The interrupting speech starts at this pause's onset.
                    speak.voiceOnsetAge = state.onsetAge
                    speak.voiceOnsetIsRepause = state.isRepause
                }
            }
            if state.elapsed >= configuration.bargeInConfirmWindow - 1e-9, !holdsForVoice(state) {
                // Not confirmed in time: the reply plays on. A check still running may yet
                // confirm (slow speech-to-text); then playback stops.
                resumeReply(&out)
                speak.speechRun = 0
                return
            }
            if !state.checkRequested, !checkPending, state.elapsed >= configuration.bargeInListen - 1e-9 {
                state.checkRequested = true
                requestCheck(&out)
            }
            replyPause = state
        } else if !speak.replyEnded, onsetReached(rms) {
            if checkPending {
                // A new onset while a slow check of an earlier one runs (the reply resumed after
                // its window): pause again, so the voice is heard over silence, and let the
                // verdict ask again on the longer audio instead of dropping this voice with it.
                replyPause = PauseState(checkRequested: true, onsetAge: speak.speechRun, isRepause: true)
                speak.onsetSinceCheck = true
            } else {
                replyPause = PauseState(onsetAge: speak.speechRun)
                speak.rechecks = 0
                speak.voiceWhilePaused = 0
                speak.voiceOnsetAge = nil
                speak.voiceOnsetIsRepause = false
            }
            out.append(.pauseReply(true))
        }
    }

    /// Whether the reply is silent at a frame of `seconds` (before it is counted): it ended, or
    /// its pause has settled.
    private func replySilent(after seconds: Double, silence: Double?) -> Bool {
        if speak.replyEnded { return true }
        guard var state = replyPause else { return false }
        state.elapsed += seconds
        return Self.settled(state, silence: silence)
    }

    /// Whether the current speech run is an onset: ``TalkModeConfiguration/bargeInOnset`` of
    /// speech that stands out from the residual echo, or ``TalkModeConfiguration/bargeInFastOnset``
    /// of speech that stands out by ``TalkModeConfiguration/bargeInFastLevelFactor`` (only with
    /// levels). With the double-talk test's evidence that the run is more than the echo, the
    /// fast onset may go by the run's loudest frame (a voice's rise; only with a frame clearly
    /// beyond the echo); a run the echo explains is
    /// an onset only once it lasts ``TalkModeConfiguration/bargeInEchoOnset``, and then by its
    /// smoothed level alone (one loud frame of echo is no voice). With two frames over the echo's
    /// margin, the fast onset needs only the normal level. A run that is an onset by length
    /// and level but that the test holds back is counted once in ``SpeakCounters/heldOnsets``.
    private mutating func onsetReached(_ rms: Double?) -> Bool {
        let run = speak.speechRun + 1e-9
        let fast = rms != nil && run >= configuration.bargeInFastOnset
        let bySmoothedLevel =
            (run >= configuration.bargeInOnset && loudEnough(rms))
            || (fast && loudEnough(rms, factor: configuration.bargeInFastLevelFactor))
        let byPeak = fast && loudEnough(rms, level: speak.runPeak, factor: configuration.bargeInFastLevelFactor)
        // Two frames over the echo margin are the double-talk test's evidence of a voice: with
        // it, the fast onset needs only the normal level (a voice rising, not yet 4 × the
        // residual, waited for the full onset: 80–140 ms into the run, bench 2026-12-05).
        // Measured evidence only: with no test (no reference, a silent far end) nothing changes.
        let byEvidence =
            fast && loudEnough(rms) && speak.runMeasuredBeyondEcho >= 2 * Self.beyondEchoEvidence - 1e-9
        if byEvidence { return true }
        guard bySmoothedLevel || byPeak else { return false }
        // Double talk: a run that the echo path explains throughout (a burst of echo that the
        // canceller let through) is an onset only once it lasts ``bargeInEchoOnset``.
        if runHasVoiceEvidence(bySmoothedLevel: bySmoothedLevel) { return true }
        if run >= configuration.bargeInEchoOnset, bySmoothedLevel { return true }
        if !speak.runHeld { speak.heldOnsets += 1 }
        speak.runHeld = true
        return false
    }

    /// Whether the current speech run stands out from the residual echo: its recent level (or
    /// `level`) at least `factor` (``TalkModeConfiguration/bargeInLevelFactor``) × the reply's
    /// mean level and ``TalkModeConfiguration/bargeInMinimumLevel`` (no level rule without levels).
    private func loudEnough(_ rms: Double?, level: Double? = nil, factor: Double? = nil) -> Bool {
        guard rms != nil else { return true }
        let factor = factor ?? configuration.bargeInLevelFactor
        return (level ?? speak.runLevel) >= max(residualLevel * factor, configuration.bargeInMinimumLevel)
    }

    mutating func bargeInTranscript(_ text: String?, _ confidence: Double?, _ out: inout [Action]) {
        guard phase == .speaking, checkPending else { return }
        checkPending = false
        // Recency is judged where the transcribed audio ends, not when the (slower than real
        // time) transcriber answers: a short "stop" that ended while Whisper worked still counts.
        var verdict = text.map {
            BargeInDecision.verdict(
                transcript: $0, spokenText: spokenText, secondsSinceSpeech: speak.sinceSpeechAtCheck,
                confidence: confidence)
        }
        // The pause is a double-talk test: words heard while nothing went on once the reply
        // fell silent, and nothing since, were its echo garbled (a short stop phrase still
        // counts: "stop" can end with the pause).
        // "Since" counts only loud frames heard while the reply was silent: speech detected over
        // the resumed reply may be its echo.
        // A voice in the settled pause counts from ``voiceWhilePausedMinimum``: a sound that ended
        // with the onset still reads as speech for a few frames (the detector's smoothing).
        if verdict == .interrupt, speak.voiceWhilePaused < Self.voiceWhilePausedMinimum - 1e-9,
            speak.voiceSinceCheck < Self.voiceAfterCheck - 1e-9
        {
            verdict = .echo
        }
        let voiceGoesOn = speak.sinceSpeech <= BargeInDecision.recentSpeechWindow + 1e-9
        if verdict == .stopPhrase, speak.heardSinceCheck, speak.rechecks < 2 {
            // "Stop …" and the voice went on after the checked audio: it may be the start of a
            // longer request, so the longer audio decides.
            recheck(&out)
            return
        }
        if verdict == .stopPhrase, !speak.heardSinceCheck {
            // Just "stop": the reply ends and nothing is sent; listening starts afresh.
            stopReply(interruptingSpeechIsTurn: false, &out)
            return
        }
        // A stop phrase still followed by speech after two more looks is a request that starts
        // with "stop": an interruption like any other.
        guard verdict == .interrupt || verdict == .stopPhrase else {
            // Nothing (or too little) recognised yet while the voice goes on: ask again on the
            // longer audio from the same onset (at most twice), instead of waiting for a new one.
            // The same when the voice went on after the checked audio and has stopped since
            // (a slow transcriber): the whole utterance decides.
            // Whatever the verdict on the checked audio, a voice that went on after it (loud, or
            // loud enough for a new onset while a slow transcriber worked) is judged too: the
            // checked fragment may be the reply's echo, or "stop" cut off by the pause, with the
            // user's words after it.
            let unrecognised = verdict == nil || verdict == .tooShort
            let voiceWentOn = speak.voiceSinceCheck >= Self.voiceAfterCheck - 1e-9 || speak.onsetSinceCheck
            if speak.rechecks < 2, voiceWentOn || (unrecognised && voiceGoesOn) {
                recheck(&out)
                return
            }
            resumeReply(&out)
            speak.speechRun = 0
            if speak.replyEnded { finishReply(&out) }
            return
        }
        stopReply(interruptingSpeechIsTurn: true, &out)
    }

    /// Stops the reply (the next prompt notes the interruption) and listens: the interrupting
    /// speech goes on as the next turn, or (a stop phrase) is forgotten.
    private mutating func stopReply(interruptingSpeechIsTurn: Bool, _ out: inout [Action]) {
        // A reply that already ended (its end waited for this check) has nothing to stop.
        if !speak.replyEnded { out.append(.stopSpeech(recordInterruption: true)) }
        resumeReply(&out)
        phase = .listening
        spokenText = ""
        if interruptingSpeechIsTurn {
            if speak.voiceOnsetIsRepause, let age = speak.voiceOnsetAge {
                // The first onset was the reply's echo: the turn starts at the re-pause that
                // heard the voice.
                out.append(.interruptingSpeechStarts(secondsBeforeNewest: age))
            }
            out.append(.keepInterruptingSpeech)
            // Silence counts from the interrupting voice's last loud frame: what the detector
            // heard after it was the reply's echo.
            let quiet = speak.sinceLoud
            if quiet >= configuration.silenceWindow - 1e-9 {
                // The voice stopped while a slow transcriber confirmed it: the turn is over
                // already, and its audio ends one silence window after the voice.
                if quiet.isFinite { out.append(.trimTurnEnd(seconds: quiet - configuration.silenceWindow)) }
                finishTurn(&out)
                return
            }
            // The capture goes on; the speech so far counts.
            listen = ListenCounters(
                heardSpeech: true, speech: configuration.minimumSpeech, silence: quiet, utterance: 0, idle: 0)
        } else {
            listen = ListenCounters()
            out.append(.restartTurn)
        }
        report(&out)
    }

    /// Asks for a transcription of the audio so far and notes how recent speech is at its end.
    private mutating func requestCheck(_ out: inout [Action]) {
        checkPending = true
        speak.onsetSinceCheck = false
        speak.sinceSpeechAtCheck = speak.sinceSpeech
        speak.heardSinceCheck = false
        speak.voiceSinceCheck = 0
        out.append(.checkBargeIn)
    }

    /// Asks again, on the longer audio from the same onset. While the voice goes on that is the
    /// audio so far; once it has stopped, the audio ends ``recheckTail`` after the voice's last
    /// loud frame, so the echo that followed is not transcribed with it and recency is judged
    /// where the voice ended, not when a slow transcriber got round to it.
    private mutating func recheck(_ out: inout [Action]) {
        speak.rechecks += 1
        let voiceGoesOn = speak.sinceSpeech <= BargeInDecision.recentSpeechWindow + 1e-9
        guard !voiceGoesOn, speak.sinceLoud.isFinite, speak.sinceLoud > Self.recheckTail else {
            requestCheck(&out)
            return
        }
        out.append(.trimCheckEnd(seconds: speak.sinceLoud - Self.recheckTail))
        requestCheck(&out)
        speak.sinceSpeechAtCheck = Self.recheckTail
    }

    /// Loud speech after a check's audio that makes an unrecognised check worth asking again
    /// once the voice has stopped (about a word).
    static let voiceAfterCheck = 0.3

    /// Voice in settled pauses that makes an interrupting transcript the user's (0.1 s): the
    /// speech detector smooths band power over frames, so a sound that ended with the onset still
    /// reads as speech for up to ~0.1 s after the settle (0.06 s measured on the rig under load,
    /// for a 0.22 s burst); a user who interrupts speaks on through the pause.
    static let voiceWhilePausedMinimum = 0.1

    /// Audio kept after the voice when a recheck is cut at its end (within
    /// ``BargeInDecision/recentSpeechWindow``).
    static let recheckTail = 0.2

    mutating func resumeReply(_ out: inout [Action]) {
        guard replyPause != nil else { return }
        out.append(.pauseReply(false))
        replyPause = nil
        speak.sinceResume = 0
    }

    /// Leaving the speaking phase: a pending check no longer matters, the volume comes back.
    mutating func endBargeIn(_ out: inout [Action]) {
        if checkPending {
            out.append(.cancelBargeInCheck)
            checkPending = false
        }
        resumeReply(&out)
    }
}
