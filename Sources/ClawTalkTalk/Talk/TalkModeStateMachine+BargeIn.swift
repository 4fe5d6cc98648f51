import ClawTalkProtocol

/// Barge-in while the reply is spoken (talk.md §5.5 and the fast path of talk.md §10).
extension TalkModeStateMachine {
    /// The barge-in evidence: seconds of voice heard in settled pauses since the onset being
    /// checked.
    public var voiceHeardWhilePaused: Double { speak.voiceWhilePaused }
    /// The barge-in evidence: seconds of loud voice heard while the reply was silent after the
    /// latest check's audio.
    public var voiceHeardSinceCheck: Double { speak.voiceSinceCheck }

    /// Counters of the speaking phase's confirmation (the onset evidence is
    /// ``TalkModeStateMachine/bargeInDetector``'s).
    struct SpeakCounters {
        var rechecks = 0
        /// ``BargeInDetector/secondsSinceSpeech`` when the pending check was asked for (where its
        /// audio ends).
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
        /// Seconds of loud (voice, not echo) frames after the pending check's audio ends, heard
        /// while the reply was silent (a settled pause, or after the reply ended): over the
        /// playing reply, loud speech may be its resumed echo (a voice there pauses it again).
        var voiceSinceCheck = 0.0
        /// The reply's audio ended while a check was pending: the check decides whether the
        /// speech heard over its end is the next turn (nothing said is dropped unjudged).
        var replyEnded = false
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
        let voiceGoesOn = bargeInDetector.secondsSinceSpeech <= BargeInDecision.recentSpeechWindow + 1e-9
        return voiceGoesOn || (checkPending && speak.voiceWhilePaused >= Self.voiceAfterCheck - 1e-9)
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
        let replySilent = replySilent(after: seconds, silence: silence)
        // While an onset is judged, its frames teach the detector neither the echo path nor the
        // residual level; a new onset is looked for only while the reply plays.
        let verdict = bargeInDetector.frame(
            isSpeech: isSpeech, seconds: seconds, rms: rms, echo: echo, reference: reference,
            judging: replyPause != nil || checkPending, watching: replyPause == nil && !speak.replyEnded)
        if let age = speak.voiceOnsetAge { speak.voiceOnsetAge = age + seconds }
        if verdict != .quiet, checkPending {
            speak.heardSinceCheck = true
            if bargeInDetector.secondsSinceLoudSpeech == 0, replySilent { speak.voiceSinceCheck += seconds }
        }
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
                bargeInDetector.endRun()
                return
            }
            if !state.checkRequested, !checkPending, state.elapsed >= configuration.bargeInListen - 1e-9 {
                state.checkRequested = true
                requestCheck(&out)
            }
            replyPause = state
        } else if verdict == .onset {
            let onsetAge = bargeInDetector.run.seconds
            if checkPending {
                // A new onset while a slow check of an earlier one runs (the reply resumed after
                // its window): pause again, so the voice is heard over silence, and let the
                // verdict ask again on the longer audio instead of dropping this voice with it.
                replyPause = PauseState(checkRequested: true, onsetAge: onsetAge, isRepause: true)
                speak.onsetSinceCheck = true
            } else {
                replyPause = PauseState(onsetAge: onsetAge)
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
        let voiceGoesOn = bargeInDetector.secondsSinceSpeech <= BargeInDecision.recentSpeechWindow + 1e-9
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
            bargeInDetector.endRun()
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
            let quiet = bargeInDetector.secondsSinceLoudSpeech
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
        speak.sinceSpeechAtCheck = bargeInDetector.secondsSinceSpeech
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
        let sinceLoud = bargeInDetector.secondsSinceLoudSpeech
        let voiceGoesOn = bargeInDetector.secondsSinceSpeech <= BargeInDecision.recentSpeechWindow + 1e-9
        guard !voiceGoesOn, sinceLoud.isFinite, sinceLoud > Self.recheckTail else {
            requestCheck(&out)
            return
        }
        out.append(.trimCheckEnd(seconds: sinceLoud - Self.recheckTail))
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
        bargeInDetector.replyResumed()
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
