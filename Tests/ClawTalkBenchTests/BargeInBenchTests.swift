import ClawTalkCommand
import Foundation
import Testing

@testable import ClawTalkBench

/// The barge-in bench's readings: the speaker monitor's silences and the node's log.
@Suite struct BargeInBenchTests {
    static let zero = ContinuousClock.now

    static func at(_ ms: Int) -> ContinuousClock.Instant { zero + .milliseconds(ms) }

    /// Sound from 0 to 1000 ms with a 60 ms word gap at 400 ms, silent from 1180 ms to 2100 ms,
    /// sound again until 3000 ms, then silent.
    static func timeline() -> MonitorTimeline {
        var timeline = MonitorTimeline()
        for ms in stride(from: 0, to: 3200, by: 10) {
            let gap = (400..<460).contains(ms) || (1180..<2100).contains(ms) || ms >= 3000
            timeline.note(sound: !gap, at: at(ms))
        }
        return timeline
    }

    @Test func thePauseIsTheFirstLongSilenceAfterTheOnsetAndItsGapItsLength() throws {
        let timeline = Self.timeline()
        let pause = try #require(timeline.pause(after: Self.at(300), before: Self.at(2300), now: Self.at(3190)))
        #expect(pause.start == Self.at(1180), "the 60 ms word gap is no pause")
        #expect(pause.end == Self.at(2100))
        // A reply already silent at the onset was not paused by it.
        #expect(timeline.pause(after: Self.at(1500), before: Self.at(2000), now: Self.at(3190)) == nil)
        // A silence still going on counts once it is long enough.
        let last = timeline.pause(after: Self.at(2500), before: Self.at(3100), now: Self.at(3190))
        #expect(last?.start == Self.at(3000) && last?.end == nil)
        #expect(timeline.pause(after: Self.at(2500), before: Self.at(3100), now: Self.at(3100)) == nil)
    }

    @Test func aStoppedReplyHasNoSoundAfterItsPause() {
        let timeline = Self.timeline()
        #expect(!timeline.sound(between: Self.at(1200), and: Self.at(2050)))
        #expect(timeline.sound(between: Self.at(1200), and: Self.at(2150)), "it played again at 2100 ms")
        #expect(timeline.sound(between: Self.at(900), and: Self.at(1000)), "sound going on at the start")
    }

    @Test func theLogIsReadOnFromWhereItStoppedAndCountsPausesWhileSpeaking() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bargein-\(UUID()).log")
        defer { try? FileManager.default.removeItem(at: file) }
        let lines = [
            "2026-12-03T17:18:42.000Z info clawtalk.talk.runtime talk.phase from=listening to=speaking",
            "2026-12-03T17:18:43.000Z debug clawtalk.talk.runtime talk.pause atS=1.0 beyondEchoS=0.04 on=true runS=0.08",
            "2026-12-03T17:18:44.000Z debug clawtalk.talk.runtime talk.pause atS=2.0 on=false",
            "2026-12-03T17:18:52.000Z info clawtalk.talk.runtime talk.phase from=speaking to=listening",
            "2026-12-03T17:18:53.000Z debug clawtalk.talk.runtime talk.pause atS=0.5 on=true",
            // Onsets held by the double-talk test: one while speaking (written late), one after.
            "2026-12-03T17:18:45.000Z debug clawtalk.talk.runtime talk.onset.held atS=3.1 echoExcess=1.1 runS=0.06",
            "2026-12-03T17:18:54.000Z debug clawtalk.talk.runtime talk.onset.held atS=1.2 runS=0.06",
        ]
        try (lines[0] + "\n" + lines[1] + "\n" + lines[2].prefix(30)).write(to: file, atomically: true, encoding: .utf8)
        let log = BargeInLog(file: file)
        log.read()
        #expect(log.phases.map(\.to) == ["speaking"])
        #expect(log.pauses.count == 1)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        let rest = String(lines[2].dropFirst(30)) + "\n" + lines[3...].joined(separator: "\n") + "\n"
        try handle.write(contentsOf: Data(rest.utf8))
        try handle.close()
        log.read()
        #expect(log.phases.map(\.to) == ["speaking", "listening"])
        let start = try #require(BargeInLog.parseDate("2026-12-03T17:18:40.000Z"))
        let end = try #require(BargeInLog.parseDate("2026-12-03T17:19:00.000Z"))
        let speaking = log.speaking(from: start, to: end)
        #expect(speaking.pauses == 1, "the pause after the reply ended is not counted")
        #expect(speaking.held == 1, "the held onset while speaking")
        #expect(abs(speaking.hours * 3600 - 10) < 0.001)
    }

    @Test func theProbeRunCountsOnlyUntilItsEndAndOutsideTheProbes() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bargein-\(UUID()).log")
        defer { try? FileManager.default.removeItem(at: file) }
        let lines = [
            "2026-12-03T17:18:40.000Z info clawtalk.talk.runtime talk.phase from=listening to=speaking",
            "2026-12-03T17:18:42.000Z debug clawtalk.talk.runtime talk.pause atS=2.0 on=true",
            "2026-12-03T17:18:45.000Z debug clawtalk.talk.runtime talk.pause atS=5.0 on=true",
            "2026-12-03T17:18:50.000Z info clawtalk.talk.runtime talk.phase from=speaking to=listening",
            // The reading alone, after the probe run ended at 17:18:55.
            "2026-12-03T17:19:00.000Z info clawtalk.talk.runtime talk.phase from=listening to=speaking",
            "2026-12-03T17:19:05.000Z debug clawtalk.talk.runtime talk.pause atS=5.0 on=true",
            "2026-12-03T17:19:20.000Z info clawtalk.talk.runtime talk.phase from=speaking to=listening",
        ]
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let log = BargeInLog(file: file)
        log.read()
        let clock = BargeInLog.Clock()
        let base = try #require(BargeInLog.parseDate("2026-12-03T17:18:40.000Z"))
        let probe = (clock.instant(base.addingTimeInterval(1.8)), clock.instant(base.addingTimeInterval(3)))
        let speaking = log.speaking(
            excluding: [probe], until: base.addingTimeInterval(15), clock: clock)
        #expect(speaking.pauses == 1, "the probe's own pause and the reading alone's are not counted")
        #expect(abs(speaking.hours * 3600 - 8.8) < 0.01, "10 s speaking less the 1.2 s probe window")
    }

    @Test func probesInterleaveOneSoundInThree() {
        #expect(ServiceBargeInBench.schedule(interruptions: 4, sounds: 2) == [false, false, true, false, false, true])
        #expect(ServiceBargeInBench.schedule(interruptions: 1, sounds: 2) == [false, true, true])
    }

    @Test func theConditionsAreNamedOnTheCommandLineOrRefused() throws {
        #expect(try BenchCommand.bargeInConditions("aec0, isolated") == [.echo0, .isolated])
        #expect(throws: CLIError.self) { try BenchCommand.bargeInConditions("aec-3") }
    }
}
