import ClawTalkCommand
import Foundation

extension BenchSession {
    /// `bench turn`: whole voice turns of the real `clawtalk run` (``TurnBench``): `probes`
    /// per route (default 30, 5 with `--quick`) and `lostRuns` of the lost-turn sequence
    /// (default 10, 2 with `--quick`); the node's log is copied to `keepLog` when given.
    func turn(probes: Int? = nil, lostRuns: Int? = nil, keepLog: URL? = nil) async -> [BenchMetric] {
        do {
            let corpus = TurnCorpus(
                directory: cacheBase.appendingPathComponent("turn-v1"),
                speak: { try await self.speech($0, voice: $1, rate: $2) }, progress: progress)
            let clips = try await corpus.clips()
            var triggers: [String: [Int16]] = [:]
            for clip in clips where triggers[TurnBench.triggerKey(clip)] == nil {
                triggers[TurnBench.triggerKey(clip)] = try await speech("computer", voice: clip.voice, rate: clip.rate)
            }
            let selected = { (name: String) in self.options.only?.contains { name.hasPrefix($0) } ?? true }
            var bench = TurnBench(
                probes: probes ?? options.probes ?? (options.quick ? 5 : 30),
                lostRuns: selected("turn.lost") || selected("turn.silent_once")
                    ? lostRuns ?? (options.quick ? 2 : 10) : 0, clips: clips, triggers: triggers,
                environment: context.environment, scratch: scratch, progress: progress)
            bench.keepLog = keepLog
            bench.routes = TurnBench.Route.allCases.filter { selected($0.metric) }
            return try await bench.run()
        } catch {
            progress("bench turn: failed: \(error)\n")
            return TurnBench.names.map { .unmeasured($0.0, condition: "clawtalk run", unit: $0.1, reason: "\(error)") }
        }
    }
}
