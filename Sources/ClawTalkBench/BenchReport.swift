import Foundation

/// What `clawtalk bench` writes (`report.json`): the machine, the commit, the corpus manifest
/// hash and one ``BenchMetric`` per metric and condition (benchmarks.md §3, §7), plus the ROC
/// points of the threshold sweep.
struct BenchReport: Codable, Sendable {
    /// Version of this layout.
    var schemaVersion = 1
    /// `quick` or `full`.
    var suite: String
    /// When the run started (ISO 8601, UTC).
    var startedAt: String
    var machine: BenchMachine
    /// `git rev-parse HEAD` of the working directory, when known.
    var commit: String?
    /// SHA-256 over the corpus manifests used (generated corpus and recordings).
    var corpus: String?
    /// Fixed settings of the run (frame size, silence window, gateway delays, …).
    var config: [String: String]
    var metrics: [BenchMetric]
    /// FRR against FA/h per engine, trigger, condition and threshold.
    var roc: [WakeBenchReport.ROCPoint]

    /// `roc.csv` (benchmarks.md §7.3): `engine,trigger,condition,threshold,frr,fa_per_hour`, one
    /// line per sweep point.
    var rocCSV: String {
        var lines = ["engine,trigger,condition,threshold,frr,fa_per_hour"]
        for point in roc {
            let fields = [
                point.engine, point.trigger, point.condition, "\(point.threshold)", point.frr.map { "\($0)" } ?? "",
                "\(point.faPerHour)",
            ]
            lines.append(fields.map { $0.contains(",") ? "\"\($0)\"" : $0 }.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Metrics whose goal was not met.
    var unmet: [BenchMetric] { metrics.filter { $0.met == false } }

    enum CodingKeys: String, CodingKey {
        case schemaVersion, suite, startedAt, machine, commit, corpus, config, metrics, roc
    }

    /// Writes every key; an unknown commit or corpus is `null`, not missing.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(suite, forKey: .suite)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(machine, forKey: .machine)
        try container.encode(commit, forKey: .commit)
        try container.encode(corpus, forKey: .corpus)
        try container.encode(config, forKey: .config)
        try container.encode(metrics, forKey: .metrics)
        try container.encode(roc, forKey: .roc)
    }
}
