import ClawTalkTalk

extension LiveNode {
    /// Mirrors what owns the microphone into the status file's phase, on transitions only:
    /// push-to-talk first (listening while capturing, thinking while the transcript is finalized
    /// and delivered), else Talk mode's phase, else idle (voice wake listening); and the capture
    /// level and last transcript from `levels`.
    static func followActivity(
        ptt: PTTController, talk: TalkModeController, levels: VoiceStatusTap, into gateway: GatewayService
    ) async {
        var last: VoiceActivity.Phase = .idle
        var lastLevel = -200.0
        // Polls since anything changed: after 2 s of an idle phase and a steady level the poll
        // slows from 10 to 2.5 per second (idle CPU); the first change speeds it up again.
        var quietPolls = 0
        while !Task.isCancelled {
            let phase: VoiceActivity.Phase
            switch await ptt.state {
            case .starting, .capturing: phase = .listening
            case .finalizing: phase = .thinking
            case .idle:
                switch await talk.phase {
                case .idle: phase = .idle
                case .listening: phase = .listening
                case .thinking: phase = .thinking
                case .speaking: phase = .speaking
                }
            }
            var changed = phase != .idle
            if phase != last {
                last = phase
                await gateway.setPhase(phase)
            }
            if let level = levels.takeLevel() {
                if abs(level - lastLevel) >= 3 {
                    lastLevel = level
                    changed = true
                }
                await gateway.setInputLevel(dbfs: level)
            }
            if let transcript = levels.takeTranscript() {
                changed = true
                await gateway.setLastTranscript(transcript)
            }
            if let reply = levels.takeReply() {
                changed = true
                await gateway.setLastReply(reply)
            }
            if let running = levels.takeRealtimeRelay() {
                changed = true
                await gateway.setRealtimeRelay(running)
            }
            quietPolls = changed ? 0 : quietPolls + 1
            try? await Task.sleep(for: .milliseconds(quietPolls >= 20 ? 400 : 100))
        }
    }
}
