import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

/// The Wyoming client against ``FakeWyomingServer``, a strict protocol peer on a real socket.
@Suite struct WyomingClientTests {
    @Test func transcribeStreamsTheProtocolSequence() async throws {
        let server = try FakeWyomingServer(behaviour: .transcript(" Hello there."))
        defer { server.stop() }
        let client = WyomingClient(port: server.port)
        let audio = TranscriptionFixtures.tone(seconds: 1.05)
        let text = try await client.transcribe(audio, language: "en", names: ["openclaw", "computer"])
        #expect(text == " Hello there.")
        let session = try #require(server.waitForSessions(1).first)
        #expect(session.violation == nil)
        #expect(
            session.types == ["transcribe", "audio-start"] + Array(repeating: "audio-chunk", count: 11) + ["audio-stop"]
        )
        // 100 ms chunks: ten of 3200 bytes, then the remaining 50 ms.
        #expect(
            session.events.filter { $0.type == "audio-chunk" }.map(\.payloadLength) == Array(repeating: 3200, count: 10)
                + [1600])
        #expect(session.audioBytes == audio.samples.count * 2)
        #expect(session.format?.rate == 16000 && session.format?.channels == 1)
        #expect(session.language == "en")
        #expect(session.names == ["openclaw", "computer"])
        #expect(session.events[0].data == "{\"language\":\"en\",\"transcript_names\":[\"openclaw\",\"computer\"]}")
    }

    @Test func describeReturnsTheServersInfo() async throws {
        let server = try FakeWyomingServer(behaviour: .silent, languages: ["en", "fr"])
        defer { server.stop() }
        let info = try await WyomingClient(port: server.port).describe()
        #expect(info.summary == "faster-whisper base")
        #expect(info.supports(languageCode: "fr"))
        #expect(!info.supports(languageCode: "de"))
        #expect(server.waitForSessions(1).first?.types == ["describe"])
        #expect(server.sessions.first?.violation == nil)
    }

    @Test func aClosedPortIsUnreachableAtOnce() async throws {
        let port = closedLoopbackPort()
        let start = ContinuousClock.now
        do {
            _ = try await WyomingClient(port: port).describe()
            Issue.record("describe succeeded on a closed port")
        } catch let error as SpeechError {
            guard case .sttServerUnreachable(let address, let reason) = error else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect(address == "127.0.0.1:\(port)")
            #expect(reason.contains("refused"), "\(reason)")
            #expect(error.description.contains("127.0.0.1:\(port)"))
            #expect(error.description.contains("stt.wyomingSocket"))
        }
        // "refused" (not a timeout) shows it did not wait for the 1 s connect limit; the clock only
        // shows that it ended, whatever the machine's speed.
        #expect(start.duration(to: .now) < .seconds(30))
    }

    @Test func aSilentServerTimesOut() async throws {
        let server = try FakeWyomingServer(behaviour: .silent)
        defer { server.stop() }
        let client = WyomingClient(port: server.port, responseTimeout: .milliseconds(500))
        let start = ContinuousClock.now
        await #expect(
            throws: SpeechError.sttTimedOut(operation: "transcription at 127.0.0.1:\(server.port)", seconds: 0.5)
        ) {
            _ = try await client.transcribe(TranscriptionFixtures.tone(seconds: 0.3))
        }
        let elapsed = start.duration(to: .now)
        // At least the limit; at most far below the 30 s default a client ignoring it would take.
        #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(15), "\(elapsed)")
    }

    @Test func cancellingTheTaskInterruptsTheWait() async throws {
        let server = try FakeWyomingServer(behaviour: .silent)
        defer { server.stop() }
        let client = WyomingClient(port: server.port, responseTimeout: .seconds(20))
        let start = ContinuousClock.now
        let task = Task { try await client.transcribe(TranscriptionFixtures.tone(seconds: 0.3)) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        // Far below the 20 s response limit it would otherwise wait out.
        #expect(start.duration(to: .now) < .seconds(15))
    }

    @Test(arguments: [FakeWyomingServer.Behaviour.close, .truncated, .garbage])
    func brokenAnswersAreProtocolErrors(behaviour: FakeWyomingServer.Behaviour) async throws {
        let server = try FakeWyomingServer(behaviour: behaviour)
        defer { server.stop() }
        do {
            let text = try await WyomingClient(port: server.port).transcribe(TranscriptionFixtures.tone(seconds: 0.2))
            Issue.record("got '\(text)' from a broken answer")
        } catch let error as SpeechError {
            guard case .wyomingProtocol = error else {
                Issue.record("wrong error: \(error)")
                return
            }
        }
    }

    /// The fake is a real peer: it refuses what the protocol does not allow, and the client
    /// reports the server's `error` event.
    @Test(arguments: [
        ([WyomingEvent.audioChunk(.speech, samples: [1, 2]), .audioStop], "unexpected 'audio-chunk' in state idle"),
        ([.audioStart(.speech), .audioChunk(WyomingAudioFormat(rate: 8000), samples: [1]), .audioStop], "differs"),
        ([.audioStart(WyomingAudioFormat(rate: 16000, width: 4)), .audioStop], "width 2"),
        (
            [
                .audioStart(.speech),
                WyomingEvent(type: "audio-chunk", data: WyomingAudioFormat.speech.jsonForTests, payload: [1, 2, 3]),
                .audioStop,
            ], "whole frames"
        ),
        (
            [
                .audioStart(.speech), WyomingEvent(type: "audio-chunk", data: WyomingAudioFormat.speech.jsonForTests),
                .audioStop,
            ], "whole frames"
        ),
        ([.audioStop], "unexpected 'audio-stop' in state idle"),
        ([.transcribe(language: nil), .transcribe(language: "en"), .audioStop], "unexpected 'transcribe'"),
        ([WyomingEvent(type: "synthesize"), .audioStop], "unexpected 'synthesize'"),
    ])
    func malformedSequencesAreRejected(events: [WyomingEvent], expected: String) async throws {
        let server = try FakeWyomingServer(behaviour: .silent)
        defer { server.stop() }
        let client = WyomingClient(port: server.port, responseTimeout: .seconds(5))
        do {
            _ = try await client.exchange(events, operation: "test", timeout: .seconds(5)) { $0.transcriptText }
            Issue.record("the fake accepted a malformed sequence")
        } catch let error as SpeechError {
            #expect("\(error)".contains("server reported an error"), "\(error)")
            #expect("\(error)".contains(expected), "\(error)")
        }
        let violation = try #require(server.waitForSessions(1).first?.violation)
        #expect(violation.contains(expected))
    }
}

extension WyomingAudioFormat {
    /// The `rate`/`width`/`channels` object, built here independently of the module's own.
    var jsonForTests: JSONObject {
        ["rate": .int(Int64(rate)), "width": .int(Int64(width)), "channels": .int(Int64(channels))]
    }
}
