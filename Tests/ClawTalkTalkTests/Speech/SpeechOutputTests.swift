import ClawTalkAudio
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

@testable import ClawTalkTalk

@Suite("Speech output (talk.md §7)", .serialized, .timeLimit(.minutes(1)))
struct SpeechOutputTests {
    /// A speech output over a connected operator session (or none), with fakes.
    struct Rig {
        let harness: GatewayHarness
        let speech: SpeechOutput
        let audio: FakeAudioOutput
        let local: FakeLocalSynthesizer
        let earcons: Locked<Int>

        var earconCount: Int { earcons.value }

        func talkSpeakCalls() async -> [WireJSON] { await harness.operatorCalls("talk.speak") }
        func ttsSpeakCalls() async -> [WireJSON] { await harness.operatorCalls("tts.speak") }
    }

    static func rig(
        operator connected: Bool = true, configuration: SpeechOutput.Configuration = .init(),
        audio: FakeAudioOutput = FakeAudioOutput(), local: FakeLocalSynthesizer = FakeLocalSynthesizer(),
        script: @escaping @Sendable (inout OperatorScript) -> Void = { _ in },
        gateway: @escaping @Sendable (inout TestGatewayConfiguration) -> Void = { _ in }
    ) async throws -> Rig {
        var operatorScript = OperatorScript()
        script(&operatorScript)
        let harness = try GatewayHarness(script: operatorScript, configure: gateway)
        if connected { try await harness.startBoth() } else { try await harness.startNode() }
        let earcons = Locked(0)
        let speech = SpeechOutput(
            audio: audio, local: local, configuration: configuration, errorEarcon: { earcons.update { $0 += 1 } })
        await speech.attach(operator: harness.operatorSession)
        return Rig(harness: harness, speech: speech, audio: audio, local: local, earcons: earcons)
    }

    /// Encodes a 300 ms 440 Hz tone at 24 kHz with `encoder` (`lame` or `opusenc`).
    static func encodedTone(_ tool: String, extension fileExtension: String) throws -> [UInt8] {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let wav = folder.path + "/tone.wav"
        let out = folder.path + "/tone." + fileExtension
        try run("/usr/bin/sox", ["-n", "-r", "24000", "-c", "1", "-b", "16", wav, "synth", "0.3", "sine", "440"])
        switch tool {
        case "lame": try run("/usr/bin/lame", ["--quiet", "-b", "64", wav, out])
        default: try run("/usr/bin/opusenc", ["--quiet", "--bitrate", "64", wav, out])
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: out)))
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw HarnessError(description: "\(tool) failed") }
    }

    @Test func aPCMClipFromTalkSpeakIsPlayedAtItsRateWithTheDirectiveParams() async throws {
        let rig = try await Self.rig()
        await rig.speech.updateTalkConfig(TalkConfig(voiceAliases: ["nova": "voice-nova-2"]))
        let directive = TalkDirective(voice: "nova", speed: 1.1, language: "en", once: true)
        let result = await rig.speech.speak("Good morning.", directive: directive)
        #expect(result.outcome == .finished)
        #expect(result.engines == [.talkSpeak])
        let params = try #require(await rig.talkSpeakCalls().first)
        #expect(params["text"] == "Good morning.")
        #expect(params["voiceId"] == "voice-nova-2")
        #expect(params["speed"] == 1.1)
        #expect(params["language"] == "en")
        #expect(params["outputFormat"] == "pcm_24000")
        #expect(rig.audio.items == [FakeAudioOutput.Item(format: AudioFormat(sampleRate: 24000), frames: [7200])])
        #expect(abs(result.playedSeconds - 0.3) < 0.001)
        // `once`: the next reply does not inherit the voice.
        _ = await rig.speech.speak("Again.")
        #expect(await rig.talkSpeakCalls().last?["voiceId"] == nil)
        await rig.harness.stop()
    }

    @Test func aDirectiveWithoutOnceBecomesTheTalkSessionDefaultUntilReset() async throws {
        let rig = try await Self.rig()
        _ = await rig.speech.speak("One.", directive: TalkDirective(voice: "voice-raw-id-1234", stability: 0.4))
        _ = await rig.speech.speak("Two.")
        await rig.speech.resetTalkSession()
        _ = await rig.speech.speak("Three.")
        let calls = await rig.talkSpeakCalls()
        #expect(calls.map { $0["voiceId"]?.stringValue } == ["voice-raw-id-1234", "voice-raw-id-1234", nil])
        #expect(calls.map { $0["stability"]?.doubleValue } == [0.4, 0.4, nil])
        await rig.harness.stop()
    }

    @Test(arguments: ["mp3", "opus"])
    func compressedClipsAreDecodedAndPlayed(kind: String) async throws {
        let bytes = try Self.encodedTone(kind == "mp3" ? "lame" : "opusenc", extension: kind)
        let clip: TestClip = kind == "mp3" ? .mp3(bytes) : .oggOpus(bytes)
        let rig = try await Self.rig { $0.talkSpeak = .clip(clip) }
        let result = await rig.speech.speak("Compressed.")
        #expect(result.outcome == .finished)
        #expect(result.engines == [.talkSpeak])
        let item = try #require(rig.audio.items.first)
        #expect(item.format.sampleRate == (kind == "mp3" ? 24000 : 48000))
        #expect(abs(item.seconds - 0.3) < 0.08, "decoded \(item.seconds) s")
        await rig.harness.stop()
    }

    /// One row of the fallback chain (talk.md §7.5).
    struct ChainRow: Sendable, CustomTestStringConvertible {
        var name: String
        var talkSpeak: ScriptedReply
        var ttsSpeak: ScriptedReply? = nil
        var withoutTalkSpeak = false
        var fallback: TTSFallback = .eligible
        var engines: [SpeechEngine]
        var ttsCalls: Int
        var earcons: Int
        var testDescription: String { name }
    }

    static let rows: [ChainRow] = [
        ChainRow(
            name: "talk_unconfigured → tts.speak",
            talkSpeak: .talkSpeakUnavailable(.talkUnconfigured, fallbackEligible: nil),
            engines: [.ttsSpeak], ttsCalls: 1, earcons: 0),
        ChainRow(
            name: "fallbackEligible, tts.speak fails → espeak-ng",
            talkSpeak: .talkSpeakUnavailable(.talkProviderUnsupported, fallbackEligible: true),
            ttsSpeak: .unavailable("SECRET_SURFACE_UNAVAILABLE"), engines: [.espeak], ttsCalls: 1, earcons: 0),
        ChainRow(
            name: "UNAVAILABLE without reason → tts.speak", talkSpeak: .unavailable("provider down"),
            engines: [.ttsSpeak], ttsCalls: 1, earcons: 0),
        ChainRow(
            name: "unplayable clip → tts.speak", talkSpeak: .clip(.unplayable()), engines: [.ttsSpeak], ttsCalls: 1,
            earcons: 0),
        ChainRow(
            name: "talk.speak not offered → tts.speak", talkSpeak: .clip(.pcm24000()), withoutTalkSpeak: true,
            engines: [.ttsSpeak], ttsCalls: 1, earcons: 0),
        ChainRow(
            name: "synthesis_failed → no espeak-ng",
            talkSpeak: .talkSpeakUnavailable(.synthesisFailed, fallbackEligible: false), engines: [], ttsCalls: 0,
            earcons: 1),
        ChainRow(
            name: "invalid_audio_result (no flag) → no espeak-ng",
            talkSpeak: .talkSpeakUnavailable(.invalidAudioResult, fallbackEligible: nil), engines: [], ttsCalls: 0,
            earcons: 1),
        ChainRow(
            name: "synthesis_failed, tts.fallback always → espeak-ng",
            talkSpeak: .talkSpeakUnavailable(.synthesisFailed, fallbackEligible: false), fallback: .always,
            engines: [.espeak], ttsCalls: 0, earcons: 1),
        ChainRow(
            name: "eligible, tts.speak fails, tts.fallback never → silence",
            talkSpeak: .talkSpeakUnavailable(.methodUnavailable, fallbackEligible: true),
            ttsSpeak: .error(ErrorShape(code: "INVALID_REQUEST", message: "text too long")), fallback: .never,
            engines: [], ttsCalls: 1, earcons: 1),
    ]

    @Test(arguments: rows)
    func theFallbackChain(row: ChainRow) async throws {
        let rig = try await Self.rig(
            configuration: .init(outputFormat: nil, fallback: row.fallback),
            script: { script in
                script.talkSpeak = row.talkSpeak
                if let tts = row.ttsSpeak { script.ttsSpeak = tts }
            },
            gateway: { configuration in
                if row.withoutTalkSpeak { configuration.methods.removeAll { $0 == "talk.speak" } }
            })
        let result = await rig.speech.speak("Fallback test.")
        #expect(result.engines == row.engines)
        #expect(await rig.ttsSpeakCalls().count == row.ttsCalls)
        #expect(await rig.ttsSpeakCalls().allSatisfy { $0 == ["text": "Fallback test."] })
        #expect(rig.earconCount == row.earcons)
        #expect(rig.local.texts == (row.engines == [.espeak] ? ["Fallback test."] : []))
        if row.engines.isEmpty {
            guard case .failed = result.outcome else {
                Issue.record("expected a failure, got \(result.outcome)")
                return
            }
            #expect(rig.audio.items.isEmpty)
        } else {
            #expect(result.outcome == .finished)
            #expect(rig.audio.items.count == 1)
        }
        await rig.harness.stop()
    }

    @Test func aFailedPCMRequestIsRetriedOnceWithoutOutputFormatForTheTalkSession() async throws {
        let rig = try await Self.rig()
        await rig.harness.gateway.enqueueReply(
            .talkSpeakUnavailable(.synthesisFailed, fallbackEligible: false), for: "talk.speak")
        let first = await rig.speech.speak("First.")
        #expect(first.outcome == .finished)
        #expect(first.engines == [.talkSpeak])
        _ = await rig.speech.speak("Second.")
        await rig.speech.resetTalkSession()
        _ = await rig.speech.speak("Third.")
        let formats = await rig.talkSpeakCalls().map { $0["outputFormat"]?.stringValue }
        #expect(formats == ["pcm_24000", nil, nil, "pcm_24000"])
        #expect(rig.earconCount == 0)
        #expect(rig.local.requests.isEmpty)
        await rig.harness.stop()
    }

    @Test func nodeOnlySpeechUsesEspeakWithTheDirectiveLanguageAndRate() async throws {
        let rig = try await Self.rig(operator: false)
        let result = await rig.speech.speak(
            "Bonjour. Ça va?", directive: TalkDirective(rateWpm: 200, language: "fr_FR"))
        #expect(result.outcome == .finished)
        #expect(result.engines == [.espeak])
        #expect(
            rig.local.requests == [
                .init(text: "Bonjour.", voice: "fr-fr", rateWPM: 200),
                .init(text: "Ça va?", voice: "fr-fr", rateWPM: 200),
            ])
        await rig.speech.resetTalkSession()
        _ = await rig.speech.speak("Lento.", directive: TalkDirective(speed: 0.8, once: true))
        #expect(rig.local.requests.last == .init(text: "Lento.", voice: "en-us", rateWPM: 140))
        _ = await rig.speech.speak("Default.")
        #expect(rig.local.requests.last == .init(text: "Default.", voice: "en-us", rateWPM: 175))
        #expect(await rig.talkSpeakCalls().isEmpty)
        // One output item per speak call: espeak's sentences play as one stream.
        #expect(rig.audio.items.first?.frames == [2205, 2205])
        await rig.harness.stop()
    }

    @Test func textsLongerThan4000CharactersAreSplitAtSentenceBoundaries() async throws {
        let rig = try await Self.rig()
        let sentences = (1...300).map { "Sentence number \($0) is here." }
        let text = sentences.joined(separator: " ")
        #expect(text.count > 8000)
        let result = await rig.speech.speak(text)
        #expect(result.outcome == .finished)
        let texts = await rig.talkSpeakCalls().compactMap { $0["text"]?.stringValue }
        #expect(texts.count == 3)
        #expect(texts.allSatisfy { $0.count <= 4000 && $0.hasSuffix("is here.") })
        #expect(texts.joined(separator: " ") == text)
        #expect(result.engines == [.talkSpeak, .talkSpeak, .talkSpeak])
        #expect(rig.audio.items.count == 1)
        #expect(rig.audio.items.first?.frames == [7200, 7200, 7200])
        await rig.harness.stop()
    }

    @Test func stopSpeakingStopsPlaybackAndReportsTheSecondsHeard() async throws {
        let audio = FakeAudioOutput(realTime: true)
        let rig = try await Self.rig(audio: audio) { $0.talkSpeak = .clip(.pcm24000(durationMs: 3000)) }
        let recorded = Locked<Double?>(nil)
        await rig.speech.setInterruptionHandler { seconds in recorded.update { $0 = seconds } }
        #expect(await rig.speech.stopSpeaking(recordInterruption: true) == nil)
        let speaking = Task { await rig.speech.speak("A long reply. With two sentences.") }
        try await GatewayHarness.wait("playing") { !audio.items.isEmpty }
        try await Task.sleep(for: .milliseconds(400))
        let heard = try #require(await rig.speech.stopSpeaking(recordInterruption: true))
        // The fake output plays in real time, so how much was heard depends on the machine's speed:
        // some of the 3 s clip, not all of it.
        #expect(heard > 0 && heard < 3.0, "heard \(heard) s")
        #expect(recorded.value == heard)
        let result = await speaking.value
        #expect(result.outcome == .interrupted)
        #expect(abs(result.playedSeconds - heard) < 0.001)
        #expect(rig.local.cancelCount >= 1)
        #expect(audio.stops >= 1)
        #expect(await rig.speech.isSpeaking == false)
        await rig.harness.stop()
    }

    @Test func aNewSpeechSessionStopsTheCurrentOne() async throws {
        let audio = FakeAudioOutput(realTime: true)
        let rig = try await Self.rig(audio: audio) { $0.talkSpeak = .clip(.pcm24000(durationMs: 2000)) }
        let first = Task { await rig.speech.speak("First reply.") }
        try await GatewayHarness.wait("playing") { !audio.items.isEmpty }
        await rig.harness.gateway.updateScript { $0.talkSpeak = .clip(.pcm24000(durationMs: 100)) }
        let second = await rig.speech.speak("Second reply.")
        #expect(await first.value.outcome == .interrupted)
        #expect(second.outcome == .finished)
        await rig.harness.stop()
    }

    /// An output whose device is gone: every item fails at once.
    struct BrokenAudioOutput: AudioOutput {
        func play(_ buffers: AsyncThrowingStream<PCMBuffer, any Error>, format: AudioFormat) async -> AudioPlayback {
            AudioPlayback(playedSeconds: 0, error: "no sound server: connection refused")
        }

        func stop() {}
    }

    @Test func aFailingOutputEndsTheSessionAtOnce() async throws {
        let local = FakeLocalSynthesizer()
        let speech = SpeechOutput(
            audio: BrokenAudioOutput(), local: local, configuration: .init(prefetchLead: .milliseconds(100)))
        let text = (1...20).map { "Sentence \($0)." }.joined(separator: " ")
        let started = ContinuousClock.now
        let result = await speech.speak(text)
        // "At once" is shown by the synthesis count (the 20 sentences are not all made); the clock
        // only shows that it does not hang, whatever the machine's speed.
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(result.outcome == .failed("playback: no sound server: connection refused"))
        #expect(local.requests.count < 20, "synthesis stops with the player")
    }

    @Test func failuresAreClassifiedPerTheContract() {
        let timeout = SpeechFailure.classify(GatewayError.timedOut(method: "talk.speak"), method: "talk.speak")
        #expect(timeout.fallbackEligible)
        #expect(SpeechFailure.classify(GatewayError.notConnected, method: "talk.speak").fallbackEligible)
        let invalid = SpeechFailure.classify(
            GatewayError.response(method: "talk.speak", error: ErrorShape(code: "INVALID_REQUEST", message: "bad")),
            method: "talk.speak")
        #expect(!invalid.fallbackEligible)
        let unknownReason = SpeechFailure.classify(
            GatewayError.response(
                method: "talk.speak",
                error: ErrorShape(code: "UNAVAILABLE", message: "x", details: ["reason": "something_new"])),
            method: "talk.speak")
        #expect(!unknownReason.fallbackEligible)
    }

    @Test func chunksRespectTheLimitAndCutOverlongSentencesAtWhitespace() {
        let words = String(repeating: "word ", count: 30).trimmingCharacters(in: .whitespaces)
        let chunks = SpeechTextChunker.chunks(words + ". Short one.", limit: 40)
        #expect(chunks.allSatisfy { $0.count <= 40 })
        #expect(chunks.joined(separator: " ") == words + ". Short one.")
        #expect(SpeechTextChunker.chunks("  \n ", limit: 40).isEmpty)
    }
}
