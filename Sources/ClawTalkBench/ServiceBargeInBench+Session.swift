import ClawTalkAudio
import ClawTalkDevices
import ClawTalkTesting
import Foundation

extension ServiceBargeInBench {
    /// One condition's running node, the user's voice into `ct_mic`, and the clock that maps the
    /// node's log times onto the bench's.
    struct Session {
        let bench: ServiceBargeInBench
        let rig: SoakBench.Rig
        let soak: SoakBench
        let harness: PlaybackController
        let log: BargeInLog
        let monitor: MonitorRecorder
        let clock = BargeInLog.Clock()
        var random = SeededGenerator(state: 15)

        /// What one probe did, in ms from the user's speech onset.
        struct Outcome {
            var pause: Double?
            var gap: Double?
            var stop: Double?
            /// The reply was heard again between its pause and the stop: the node talked over
            /// the user while the words were confirmed.
            var resumedBeforeStop = false
            /// When the probe was over (the stretch up to here is not counted as nobody speaking).
            var settled: ContinuousClock.Instant
        }

        /// The instant a reply began (`talk.phase … to=speaking`), asking a question first when
        /// the node is listening; waits for a reply in progress to end. Nil after 3 minutes.
        mutating func speakingReply() async throws -> ContinuousClock.Instant? {
            let deadline = ContinuousClock.now + .seconds(180)
            var asked: ContinuousClock.Instant?
            while ContinuousClock.now < deadline {
                log.read()
                if let last = log.phases.last {
                    let at = clock.instant(last.at)
                    switch last.to {
                    case "speaking" where ContinuousClock.now - at < .milliseconds(1500):
                        return at
                    case "listening" where asked.map({ ContinuousClock.now - $0 > .seconds(30) }) ?? true:
                        asked = .now
                        _ = await harness.play(
                            .pcm(PCMBuffer(format: .speech, samples: bench.clips.question), kind: .speech))
                    default:
                        break
                    }
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            return nil
        }

        /// Plays `clip` into the microphone; the instant its speech began there.
        func inject(_ clip: [Int16]) async -> ContinuousClock.Instant? {
            let start = LoopbackBench.speechBounds(clip)?.start ?? 0
            let outcome = await harness.play(.pcm(PCMBuffer(format: .speech, samples: clip), kind: .speech))
            return outcome.timing?.startedAt.map { $0 + BenchClock.duration(samples: start) }
        }

        /// Waits for the probe's end and reads it: an interruption until `talk.barge_in` (60 s);
        /// a sound until the reply ended or was stopped (90 s), at least 3 s.
        func outcome(after onset: ContinuousClock.Instant, sound: Bool) async throws -> Outcome {
            let wall = clock.date(onset)
            _ = await BenchTool.wait(seconds: sound ? 90 : 60) {
                log.read()
                if log.bargeIns.contains(where: { $0 >= wall }) { return true }
                guard sound, ContinuousClock.now - onset > .seconds(3) else { return false }
                return log.phases.last.map { $0.to != "speaking" && $0.at >= wall } ?? false
            }
            try await Task.sleep(for: .milliseconds(300))
            let (timeline, now) = monitor.timeline
            let pause = timeline.pause(after: onset, before: onset + .seconds(2), now: now)
            let stop = log.bargeIns.first { $0 >= wall }.map { clock.instant($0) }
            let resumed = pause.flatMap { silence in silence.end.map { end in stop.map { end < $0 } ?? false } }
            return Outcome(
                pause: pause.map { BenchClock.ms($0.start - onset) },
                gap: pause.flatMap { silence in silence.end.map { BenchClock.ms($0 - silence.start) } },
                stop: stop.map { BenchClock.ms($0 - onset) }, resumedBeforeStop: resumed ?? false, settled: .now)
        }

        /// Lets the node read its replies for `minutes` with nobody speaking (asking again after
        /// each); the pauses it made and the onsets it held while speaking, and the hours it spoke.
        mutating func readAlone(minutes: Double) async throws -> BargeInLog.Tally? {
            guard minutes > 0 else { return nil }
            let start = ContinuousClock.now
            let end = start + .milliseconds(Int(minutes * 60_000))
            bench.progress("bench bargein: the node reads alone for \(minutes) min\n")
            while ContinuousClock.now < end {
                guard try await speakingReply() != nil else { break }
                _ = await BenchTool.wait(seconds: 300) {
                    log.read()
                    return log.phases.last?.to != "speaking" || ContinuousClock.now >= end
                }
            }
            log.read()
            return log.speaking(from: clock.date(start), to: clock.date(.now))
        }
    }
}
