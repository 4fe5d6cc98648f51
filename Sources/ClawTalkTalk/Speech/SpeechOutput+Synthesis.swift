import ClawTalkAudio
import ClawTalkCodecs
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import Foundation

extension SpeechOutput {
    /// The producer of a session: every segment, cut to request size, goes down the fallback
    /// chain; each request first takes a permit from `gate` and either yields audio to `sink`
    /// (the player returns the permit) or returns the permit itself. A segment withdrawn
    /// (`withdrawals`) is skipped, before or after waiting for its permit.
    func synthesize<Segments: AsyncSequence & Sendable>(
        segments: Segments, withdrawals: SpeechWithdrawals, directive: TalkDirective, purpose: SpeechPurpose,
        gate: PrefetchGate, sink: AsyncStream<SpeechClip>.Continuation
    ) async -> SynthesisReport where Segments.Element == SpeechSegment, Segments.Failure == Never {
        defer { sink.finish() }
        var report = SynthesisReport()
        for await segment in segments {
            let clips = ClipSink(continuation: sink, segment: segment.id)
            for chunk in SpeechTextChunker.chunks(segment.text, limit: configuration.maxRequestCharacters) {
                guard withdrawals.admits(segment.id) else {
                    report.withdrawn += 1
                    break
                }
                guard !Task.isCancelled, await gate.acquire() else { return report }
                guard withdrawals.admits(segment.id) else {
                    gate.release()
                    report.withdrawn += 1
                    break
                }
                await render(chunk, directive: directive, purpose: purpose, gate: gate, sink: clips, report: &report)
            }
        }
        return report
    }

    /// One request down the chain of talk.md §7.5 (``SpeechFallbackChain``); the caller holds a permit
    /// for it.
    private func render(
        _ text: String, directive: TalkDirective, purpose: SpeechPurpose, gate: PrefetchGate,
        sink: ClipSink, report: inout SynthesisReport
    ) async {
        let session = operatorSession
        let connected = await session?.isConnected ?? false
        let ttsSpeak = connected ? await session?.isAvailable(OperatorMethod.ttsSpeak.rawValue) ?? false : false
        let (chain, first) = SpeechFallbackChain.start(
            purpose: purpose, gatewayConnected: connected, ttsSpeakAvailable: ttsSpeak,
            fallback: configuration.fallback)
        var decision = first
        while true {
            if decision.earcon { await errorEarcon() }
            guard let step = decision.next else { return }
            switch step {
            case .talkSpeak, .ttsSpeak:
                let result: Result<PCMBuffer, SpeechFailure> =
                    if let session {
                        step == .talkSpeak
                            ? await requestTalkSpeak(session, text: text, directive: directive)
                            : await requestTTSSpeak(session, text: text)
                    } else {
                        .failure(SpeechFailure(reason: "no operator connection", fallbackEligible: true))
                    }
                switch result {
                case .success(let pcm):
                    sink.yield(pcm)
                    report.engines.append(step == .talkSpeak ? .talkSpeak : .ttsSpeak)
                    return
                case .failure(let failure):
                    logFallback(from: step, failure)
                    decision = chain.decide(
                        after: step, .failed(reason: failure.reason, fallbackEligible: failure.fallbackEligible))
                }
            case .local:
                await speakLocally(text, directive: directive, gate: gate, sink: sink, report: &report)
                return
            case .fail(let reason):
                report.failures.append(reason)
                gate.release()
                return
            }
        }
    }

    /// Logs a gateway step's failure: a refusal as an error, a fallback once a minute (a gateway
    /// without `talk.speak` would log it for every sentence).
    private func logFallback(from step: SpeechFallbackChain.Step, _ failure: SpeechFailure) {
        switch step {
        case .talkSpeak where !failure.fallbackEligible:
            logger.error("tts.talk_speak.failed", ["reason": .string(failure.reason)])
        case .talkSpeak:
            logger.throttled(key: "tts.talk_speak.fallback", every: .seconds(60))
                .warning("tts.talk_speak.fallback", ["reason": .string(failure.reason)])
        default:
            logger.throttled(key: "tts.tts_speak.fallback", every: .seconds(60))
                .warning("tts.tts_speak.fallback", ["reason": .string(failure.reason)])
        }
    }

    /// espeak-ng, sentence by sentence (talk.md §7.4): voice from the directive's `lang`, rate from its
    /// `rate` or `speed × 175`. The first sentence uses the caller's permit.
    private func speakLocally(
        _ text: String, directive: TalkDirective, gate: PrefetchGate, sink: ClipSink,
        report: inout SynthesisReport
    ) async {
        guard let local else {
            report.failures.append("no local speech synthesizer")
            gate.release()
            return
        }
        let voice = directive.language.map(Self.espeakVoice(language:)) ?? configuration.espeakVoice
        let rate = directive.rateWpm ?? directive.speed.map { Int(($0 * 175).rounded()) } ?? configuration.espeakRateWPM
        var holdsPermit = true
        var spoke = false
        for sentence in SentenceSplitter.split(text) {
            if !holdsPermit {
                guard !Task.isCancelled, await gate.acquire() else { break }
            }
            holdsPermit = false
            do {
                let pcm = try await local.synthesize(sentence, voice: voice, rateWPM: rate)
                guard !Task.isCancelled else { break }
                if pcm.frameCount > 0 {
                    sink.yield(pcm)
                    spoke = true
                } else {
                    gate.release()
                }
            } catch {
                gate.release()
                if Task.isCancelled { break }
                logger.error("tts.espeak.failed", ["error": .string("\(error)")])
                report.failures.append("espeak-ng: \(error)")
                break
            }
        }
        if holdsPermit { gate.release() }
        if spoke { report.engines.append(.espeak) }
    }

    /// `lang` as an espeak-ng voice name (`en-US` → `en-us`).
    static func espeakVoice(language: String) -> String {
        String(language.lowercased().map { $0 == "_" ? "-" : $0 })
    }

    // MARK: - Gateway requests

    /// `talk.speak` with the directive's params (talk.md §7.1); a non-fallback-eligible failure of a PCM
    /// request is retried once without `outputFormat` and PCM is then avoided for the Talk
    /// session (talk.md §7.2).
    private func requestTalkSpeak(_ session: OperatorSession, text: String, directive: TalkDirective) async
        -> Result<PCMBuffer, SpeechFailure>
    {
        var format = requestFormat(directive)
        var voiceless = directive
        voiceless.outputFormat = nil
        let method = OperatorMethod.talkSpeak.rawValue
        while true {
            let params = voiceless.speakParams(text: text, voiceAliases: voiceAliases, outputFormat: format)
            do {
                let payload = try await session.call(
                    method, params: try WireJSON(encoding: params), timeout: .milliseconds(params.timeoutMs))
                return await decode(try TalkSpeakResult(json: payload), requested: format, method: method)
            } catch {
                let failure = SpeechFailure.classify(error, method: method)
                if !failure.fallbackEligible, let requested = format, requested.lowercased().hasPrefix("pcm") {
                    logger.warning(
                        "tts.pcm.unavailable", ["outputFormat": .string(requested), "reason": .string(failure.reason)])
                    pcmUnavailable = true
                    format = nil
                    continue
                }
                return .failure(failure)
            }
        }
    }

    /// `tts.speak {text}` (talk.md §7.3, 60 s).
    private func requestTTSSpeak(_ session: OperatorSession, text: String) async -> Result<PCMBuffer, SpeechFailure> {
        let method = OperatorMethod.ttsSpeak.rawValue
        do {
            let payload = try await session.call(method, params: try WireJSON(encoding: TTSSpeakParams(text: text)))
            return await decode(try TalkSpeakResult(json: payload), requested: nil, method: method)
        } catch {
            return .failure(SpeechFailure.classify(error, method: method))
        }
    }

    /// The `outputFormat` to request: the directive's when playable, else the configured one;
    /// PCM is left out once it proved unavailable this Talk session.
    private func requestFormat(_ directive: TalkDirective) -> String? {
        func usable(_ format: String?) -> String? {
            guard let format else { return nil }
            if pcmUnavailable, format.lowercased().hasPrefix("pcm") { return nil }
            return format
        }
        if let wanted = directive.outputFormat, ClipFormat(outputFormat: wanted)?.isPlayable == true {
            return usable(wanted)
        }
        return usable(configuration.outputFormat)
    }

    /// Decodes a clip on the decoder lane (talk.md §7.2). The format comes from the result's fields or
    /// the bytes; a clip described by nothing falls back to the requested format.
    private func decode(_ result: TalkSpeakResult, requested: String?, method: String) async
        -> Result<PCMBuffer, SpeechFailure>
    {
        guard let data = result.audioData(), !data.isEmpty else {
            return .failure(SpeechFailure(reason: "\(method): the result holds no audio", fallbackEligible: true))
        }
        var format = ClipFormat.detect(
            data: data, outputFormat: result.outputFormat, mimeType: result.mimeType,
            fileExtension: result.fileExtension)
        let described = result.outputFormat != nil || result.mimeType != nil || result.fileExtension != nil
        if !format.isPlayable, !described, let requested, let hinted = ClipFormat(outputFormat: requested),
            hinted.isPlayable
        {
            format = hinted
        }
        let chosen = format
        do {
            let clip = try await decodeLane.run { try ClipDecoder.decode(data: data, as: chosen) }
            if !clip.notes.isEmpty {
                logger.warning("tts.clip.notes", ["notes": .string(clip.notes.joined(separator: "; "))])
            }
            guard clip.pcm.frameCount > 0 else {
                return .failure(SpeechFailure(reason: "\(method): the clip holds no samples", fallbackEligible: true))
            }
            logger.debug(
                "tts.clip",
                [
                    "method": .string(method), "provider": .string(result.provider),
                    "format": .string("\(clip.format)"), "seconds": .double(clip.pcm.duration),
                ])
            return .success(clip.pcm)
        } catch {
            return .failure(SpeechFailure.classify(error, method: method))
        }
    }
}
