import ClawTalkCommand
import ClawTalkNode
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import Foundation

/// `bench wake` inside `bench all`: one corpus (the recordings or the generated speech) through
/// ``WakeBenchRunner`` with a threshold sweep, turned into report metrics per engine, trigger
/// and condition (`wake.latency`, `wake.frr`, `wake.fa_per_hour`) and ROC points.
struct WakeBenchSuite {
    /// `recorded` or `espeak`, the first word of every condition.
    var source: String
    var dataset: WakeDataset
    var triggers: [String]
    var snrs: [Double]
    var sweepPoints: Int?
    var seed: UInt64

    /// The figures; throws when no trigger can be tested.
    func run(context: CommandContext, progress: @escaping (String) -> Void) async throws
        -> (metrics: [BenchMetric], roc: [WakeBenchReport.ROCPoint])
    {
        let wake = try ConfigLoader(environment: context.environment).load().settings.wake
        let thresholds = wake.thresholds
        var factory = try WakeDetectorFactory.load(
            selection: .auto, thresholds: thresholds, environment: context.environment
        ) { context.io.writeError("bench wake: \($0)\n") }
        let scorer = await BenchWakeScorer.prepare(
            wake: wake, selection: .auto, thresholds: thresholds, environment: context.environment
        ) { context.io.writeError("bench wake: \($0)\n") }
        factory.scorer = scorer.configuration
        let plan = factory.plan(triggers: triggers)
        var setup = WakeBenchRunner.Setup(
            dataset: dataset, triggers: plan.tested, selection: .auto, snrs: snrs,
            verifier: nil, thresholds: thresholds, sweep: true, seed: seed, factory: factory)
        setup.sweepPoints = sweepPoints
        let report: WakeBenchReport
        do {
            report = try await WakeBenchRunner(setup: setup, progress: progress).run()
            await scorer.stop()
        } catch {
            await scorer.stop()
            throw error
        }
        var metrics: [BenchMetric] = []
        for condition in report.conditions {
            for figures in report.metrics where figures.condition == condition.name {
                metrics += convert(figures, files: condition.files)
            }
        }
        for trigger in plan.unsupported {
            metrics.append(
                .unmeasured(
                    "wake.frr", condition: "\(source) \(trigger)", unit: "ratio",
                    reason: "no engine can listen for '\(trigger)'"))
        }
        let roc = report.roc.map { point -> WakeBenchReport.ROCPoint in
            var point = point
            point.condition = "\(source) \(point.condition)"
            return point
        }
        return (metrics, roc)
    }

    /// One trigger's figures under one condition as report metrics.
    func convert(_ figures: WakeBenchMetric, files: [WakeBenchReport.FileRecord]) -> [BenchMetric] {
        let condition = "\(source) \(figures.engine) '\(figures.trigger)' \(figures.condition)"
        let headline = figures.condition == "pink-10dB"
        var result: [BenchMetric] = []
        if figures.positives > 0 {
            let samples = WakeBenchEvaluator.latencies(
                files: files, trigger: figures.trigger, labels: dataset.labels)
            result.append(.latency("wake.latency", condition: condition, samples: samples, goal: .wakeLatency))
            var frr = BenchMetric.value(
                "wake.frr", condition: condition, unit: "ratio", value: figures.frr ?? 0, n: figures.positives,
                goal: headline ? .frr : nil,
                reason: source == "espeak" ? "synthetic speech: a regression figure, not comparable" : nil)
            frr.count = figures.missed
            frr.exposure = Double(figures.positives)
            frr.exposureUnit = "clips"
            frr.ci95 = figures.frrCI95?.map(BenchMetric.rounded)
            result.append(frr)
        } else {
            result.append(
                .unmeasured(
                    "wake.frr", condition: condition, unit: "ratio",
                    reason: "the corpus has no recordings of '\(figures.trigger)'"))
        }
        if figures.negativeHours > 0 {
            var rate = BenchMetric.value(
                "wake.fa_per_hour", condition: condition, unit: "per_hour", value: figures.faPerHour ?? 0,
                n: figures.negatives, goal: .faPerHour,
                reason: figures.negativeHours < 30 ? "below the 30 h of negatives the goal needs" : nil)
            // Zero false accepts in a short exposure does not show the goal is met (benchmarks.md §3).
            if figures.negativeHours < 30, rate.met == true { rate.met = nil }
            rate.count = figures.falseAccepts
            rate.exposure = BenchMetric.rounded(figures.negativeHours)
            rate.exposureUnit = "h"
            rate.ci95 = figures.faPerHourCI95?.map(BenchMetric.rounded)
            result.append(rate)
        }
        return result
    }
}
