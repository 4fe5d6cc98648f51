import ClawTalkTalk
import Foundation
import Testing

@testable import ClawTalkBench

@Suite struct BenchHelpersTests {
    @Test func sweepThinningKeepsEvenlySpacedEnds() {
        let values = [1.0, 2, 3, 4, 5, 6, 7, 8, 9]
        #expect(WakeBenchRunner.thin(values, to: 3) == [1, 5, 9])
        #expect(WakeBenchRunner.thin(values, to: nil) == values)
        #expect(WakeBenchRunner.thin(values, to: 20) == values)
        #expect(WakeBenchRunner.thin(values, to: 1) == [5])
    }

    @Test func markersPairWithTheFirstEventInTheirWindowOnly() {
        let base = ContinuousClock.now
        let starts = [base, base + .seconds(1), base + .seconds(2)]
        // The second marker was missed; its window must not take the third marker's event.
        let events = [base + .milliseconds(25), base + .milliseconds(2_030)]
        let latencies = LoopbackBench.pair(starts, events)
        #expect(latencies.count == 2)
        #expect(abs(latencies[0] - 25) < 0.001 && abs(latencies[1] - 30) < 0.001)
    }

    @Test func speechBoundsAreTheFirstAndLastSampleAboveMinus40dBFS() throws {
        var samples = [Int16](repeating: 100, count: 1_000)
        samples[200] = 400
        samples[700] = -500
        let bounds = try #require(LoopbackBench.speechBounds(samples))
        #expect(bounds.start == 200 && bounds.end == 701)
        #expect(LoopbackBench.speechBounds([Int16](repeating: 10, count: 100)) == nil)
    }

    @Test func corpusPlanHasEveryRenditionNearMissesAndReadText() throws {
        let size = SpeechCorpus.Size(voices: ["en-us", "en-gb"], rates: [150, 180], negativeMinutes: 1)
        let corpus = SpeechCorpus(
            directory: URL(fileURLWithPath: "/nonexistent"), triggers: ["computer", "hey jarvis"], size: size,
            synthesizer: .init(), progress: { _ in })
        let clips = try corpus.clips()
        #expect(clips.filter { $0.path.hasPrefix("computer/") }.count == 4)
        #expect(
            clips.filter { $0.path.hasPrefix("hey_jarvis/") }.map(\.text) == Array(repeating: "hey jarvis", count: 4))
        #expect(clips.filter { $0.source == "near-miss" }.count == SpeechCorpus.nearMisses.count)
        let words = clips.filter { $0.source.hasPrefix("text:") }.map { $0.text.split(separator: " ").count }
        // One minute at 175 wpm, in clips of at most 60 words.
        #expect(words.reduce(0, +) >= 175 && words.reduce(0, +) < 175 + 60)
        #expect(words.allSatisfy { $0 <= 60 })
        #expect(Set(clips.map(\.path)).count == clips.count)
    }

    /// Apache-2.0 says "work stoppage, computer failure": read as a negative, that is a true
    /// "computer", and the service rightly woke on it.
    @Test func theReadTextsHoldNoTriggerWord() throws {
        let raw = try SpeechCorpus.texts(excluding: [])
        #expect(raw.contains { $0.1.lowercased().contains("computer") })
        for (name, text) in try SpeechCorpus.texts() {
            let lower = text.lowercased()
            #expect(!lower.contains("computer") && !lower.contains("claude") && !lower.contains("openclaw"), "\(name)")
        }
    }
}
