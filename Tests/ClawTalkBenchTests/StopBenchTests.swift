import Testing

@testable import ClawTalkBench

/// `bench stop` reads the node's log to tell whether SIGTERM came during the moment (a run
/// whose transcription or clip had already ended is left out) and what the node said it did
/// with the work, and counts a run whose server outlived the node, or that was killed, as unmet.
@Suite("Stop bench")
struct StopBenchTests {
    static func log(_ events: [String]) -> String {
        events.map { "2026-12-05T22:43:14.508Z info clawtalk.ptt \($0) captureId=c1" }.joined(separator: "\n")
    }

    @Test(arguments: [
        (["ptt.capture.finished", "service.stopping", "ptt.capture.lost"], true),
        (["ptt.capture.finished", "ptt.transcribed", "service.stopping"], false),
        // An earlier capture's transcript does not count against the last one.
        (["ptt.capture.finished", "ptt.transcribed", "ptt.capture.finished", "service.stopping"], true),
        (["ptt.capture.finished"], false),
    ])
    func aTranscriptionIsInFlightUntilItsTranscript(events: [String], expected: Bool) {
        #expect(StopBench.inMoment(.transcription, log: Self.log(events)) == expected)
    }

    @Test func aClipIsPlayingUntilItIsSpoken() {
        #expect(StopBench.inMoment(.playback, log: Self.log(["tts.clip", "service.stopping", "tts.spoken"])))
        #expect(!StopBench.inMoment(.playback, log: Self.log(["tts.clip", "tts.spoken", "service.stopping"])))
        #expect(!StopBench.inMoment(.playback, log: Self.log(["ptt.capture.finished", "service.stopping"])))
    }

    @Test func theNoteNamesWhatTheNodeLoggedAfterTheStop() {
        let log = Self.log(["ptt.capture.finished", "service.stopping", "stt.server.stopping", "ptt.capture.lost"])
        #expect(StopBench.note(.transcription, log: log) == "service.stopping, ptt.capture.lost")
        #expect(StopBench.note(.transcription, log: Self.log(["ptt.capture.finished"])) == "no stop logged")
    }

    static func run(exitMs: Double?, orphans: [String] = [], inMoment: Bool = true) -> StopBench.Run {
        StopBench.Run(
            exitMs: exitMs, status: 0, childrenGoneMs: exitMs, children: ["clawtalk-speech[1]"], orphans: orphans,
            inMoment: inMoment, serverBusyMs: 40, load: "1.00/1.00/1.00", note: "")
    }

    @Test func theGoalIsTheSlowestStopAndALeftOutRunIsNoted() throws {
        let metrics = StopBench.metrics(
            .transcription, [Self.run(exitMs: 20), Self.run(exitMs: 480), Self.run(exitMs: 900, inMoment: false)],
            failures: [])
        let stop = try #require(metrics.first { $0.name == "stop.transcription" })
        #expect(stop.value == 480)
        #expect(stop.met == true)
        #expect(stop.n == 2)
        #expect(stop.reason?.contains("1 runs left out") == true)
        let slow = StopBench.metrics(.transcription, [Self.run(exitMs: 20), Self.run(exitMs: 501)], failures: [])
        #expect(slow.first { $0.name == "stop.transcription" }?.met == false)
    }

    @Test func aKilledNodeIsUnmetAndAnOrphanCounted() throws {
        let metrics = StopBench.metrics(
            .playback, [Self.run(exitMs: 20, orphans: ["clawtalk-speech[7]"]), Self.run(exitMs: nil)], failures: [])
        #expect(metrics.first { $0.name == "stop.playback" }?.met == false)
        #expect(metrics.first { $0.name == "stop.playback.orphans" }?.value == 1)
    }
}
