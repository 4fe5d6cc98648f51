import Testing

@testable import ClawTalkBench

/// The realtime bench's figures from the monitor's timeline and the gateway's stamps.
@Suite struct RealtimeBenchTests {
    static func at(_ ms: Int) -> ContinuousClock.Instant { BargeInBenchTests.at(ms) }

    /// Within a microsecond of `ms` (instants subtract to durations with rounding).
    static func near(_ figure: Double?, _ ms: Double) -> Bool { figure.map { abs($0 - ms) < 0.001 } ?? false }

    /// Silent until 1042 ms, sound until 2500 ms, silent after.
    static func reply() -> MonitorTimeline {
        var timeline = MonitorTimeline()
        for ms in stride(from: 0, to: 3200, by: 2) { timeline.note(sound: (1042..<2500).contains(ms), at: at(ms)) }
        return timeline
    }

    @Test func replyAudioIsTheFirstSoundAfterTheFirstChunk() {
        let timeline = Self.reply()
        #expect(Self.near(RealtimeFigures.replyAudio(firstChunk: Self.at(1000), monitor: timeline), 42))
        // A monitor still sounding when the chunk went out gives no figure.
        #expect(RealtimeFigures.replyAudio(firstChunk: Self.at(2000), monitor: timeline) == nil)
        // Nor one that stayed silent for 2 s.
        #expect(RealtimeFigures.replyAudio(firstChunk: Self.at(2600), monitor: timeline) == nil)
    }

    @Test func bargeInIsTheSilenceAndTheCancelAfterTheOnset() {
        let timeline = Self.reply()
        #expect(Self.near(RealtimeFigures.silent(onset: Self.at(2400), monitor: timeline, now: Self.at(3100)), 100))
        #expect(RealtimeFigures.silent(onset: Self.at(2400), monitor: timeline, now: Self.at(2600)) == nil)
        let cancels = [Self.at(900), Self.at(2470), Self.at(2480)]
        #expect(Self.near(RealtimeFigures.cancel(onset: Self.at(2400), cancels: cancels), 70))
        #expect(RealtimeFigures.cancel(onset: Self.at(9000), cancels: cancels) == nil)
    }

    @Test func falseCancelsAreCountedInsideTheReadingSpansOnly() {
        let spans = [(start: Self.at(0), end: Self.at(1800)), (start: Self.at(2000), end: Self.at(3800))]
        let result = RealtimeFigures.falseCancels(cancels: [Self.at(100), Self.at(1900), Self.at(3000)], spans: spans)
        #expect(result.count == 2)
        #expect(abs(result.hours - 3.6 / 3600) < 1e-9)
    }

    @Test func rejectedOnsetsAreCountedFromTheNodesLog() {
        let log = """
            2026-12-06T00:25:46.102Z debug clawtalk.talk.realtime realtime.onset turnId=turn-1
            2026-12-06T00:25:46.905Z info clawtalk.talk.realtime realtime.onset_rejected turnId=turn-1
            2026-12-06T00:26:41.759Z info clawtalk.talk.realtime realtime.cancel_output status=applied turnId=turn-12
            2026-12-06T00:26:45.988Z info clawtalk.talk.realtime realtime.onset_rejected turnId=turn-13
            """
        #expect(RealtimeBench.rejectedOnsets(log) == 2)
    }

    @Test func appendIsFromTheChunksLastSampleAtTheMicrophoneToItsArrival() {
        // 20 ms chunks (480 samples), arriving 25 ms after each chunk's end on a timeline that
        // starts at 1000 ms; the sound starts at 1100 ms + 5 ms (sample 2520, chunk 5).
        var audio = [Int16](repeating: 3, count: 480 * 10)
        for index in 2520..<audio.count { audio[index] = index % 2 == 0 ? 4000 : -4000 }
        let chunks = (0..<10).map { (samples: 480, arrived: Self.at(1000 + 20 * ($0 + 1) + 25)) }
        let figure = RealtimeFigures.append(onset: Self.at(1105), audio: audio, chunks: chunks, threshold: 1000)
        // Chunk 5 holds 1100..1120 ms: all at the microphone at 1120, arrived at 1145.
        #expect(Self.near(figure, 25))
        // A chunk that arrived before the onset cannot carry it, loud or not.
        var early = audio
        for index in 0..<480 { early[index] = 4000 }
        #expect(
            Self.near(RealtimeFigures.append(onset: Self.at(1105), audio: early, chunks: chunks, threshold: 1000), 25))
        // Nothing loud: no figure.
        #expect(RealtimeFigures.append(onset: Self.at(1105), audio: audio, chunks: chunks, threshold: 5000) == nil)
    }

    @Test func badTimestampsAreThoseNotAtTheChunksStart() {
        let sizes = [480, 480, 480, 480]
        #expect(RealtimeFigures.badTimestamps([0, 20, 40, 60], chunkSamples: sizes) == 0)
        // A new `ready` starts again from 0.
        #expect(RealtimeFigures.badTimestamps([0, 20, 0, 20], chunkSamples: sizes) == 0)
        #expect(RealtimeFigures.badTimestamps([0, 40, 20, 60], chunkSamples: sizes) == 2)
        #expect(RealtimeFigures.badTimestamps([0, 20, 20, 40], chunkSamples: sizes) == 2)
        // Chunks of 10 ms at 24 kHz: 0, 10, 20.
        #expect(RealtimeFigures.badTimestamps([0, 10, 21], chunkSamples: [240, 240, 240]) == 1)
    }
}
