import ClawTalkCommand
import Foundation

extension BenchSession {
    /// `bench stop`: `runs` stops of the real `clawtalk run` at `moment` (``StopBench``); each
    /// run's node log is kept in `keep` when given.
    func stop(moment: StopBench.Moment, runs: Int, keep: URL?) async -> [BenchMetric] {
        do {
            let corpus = TurnCorpus(
                directory: cacheBase.appendingPathComponent("turn-v1"),
                speak: { try await self.speech($0, voice: $1, rate: $2) }, progress: progress)
            let bench = StopBench(
                moment: moment, runs: runs, clips: try await corpus.clips(), environment: context.environment,
                scratch: scratch, keep: keep, progress: progress)
            return try await bench.run()
        } catch {
            progress("bench stop: failed: \(error)\n")
            return [
                .unmeasured(
                    moment.metric, condition: moment.label, unit: "ms", goal: StopBench.goal, reason: "\(error)")
            ]
        }
    }
}
