import ClawTalkSpeech

/// Turns per-file detections into the figures of benchmarks.md §3 (pure).
///
/// For a trigger, the positives are the files of its ``WakeDataset/positiveLabel(for:)`` folder
/// and every other file is a negative. A positive is detected when a detection of the trigger
/// falls in `[phraseStart, phraseEnd + 1.5 s]`; its latency is the detection's decision time
/// minus `phraseEnd`. False accepts are the trigger's detections in negative files, counted as
/// distinct with a 2 s refractory period.
enum WakeBenchEvaluator {
    /// Seconds after the phrase end during which a detection still counts (benchmarks.md §3 FRR).
    static let window = 1.5
    /// Detections closer than this count once (benchmarks.md §3 FA/h).
    static let refractory = 2.0

    /// Figures for every trigger under one condition.
    static func metrics(
        condition: String, files: [WakeBenchReport.FileRecord], triggers: [(trigger: String, engine: String)],
        labels: [String]
    ) -> [WakeBenchMetric] {
        triggers.map { trigger, engine in
            metric(condition: condition, files: files, trigger: trigger, engine: engine, labels: labels)
        }
    }

    /// The detection latencies (ms after the phrase end) of `trigger`'s detected positives.
    static func latencies(files: [WakeBenchReport.FileRecord], trigger: String, labels: [String]) -> [Double] {
        let positiveLabel = WakeDataset.positiveLabel(for: trigger, labels: labels)
        let key = TriggerText.key(trigger)
        return files.filter { $0.label == positiveLabel }.compactMap { file -> Double? in
            let start = file.phraseStartSeconds ?? 0
            let end = file.phraseEndSeconds ?? file.durationSeconds
            let first = file.detections.filter {
                TriggerText.key($0.trigger) == key && $0.atSeconds >= start && $0.atSeconds <= end + window
            }.min { $0.atSeconds < $1.atSeconds }
            return first.map { (($0.decidedAtSeconds ?? $0.atSeconds) - end) * 1000 }
        }
    }

    /// Figures for one trigger.
    static func metric(
        condition: String, files: [WakeBenchReport.FileRecord], trigger: String, engine: String, labels: [String]
    ) -> WakeBenchMetric {
        let positiveLabel = WakeDataset.positiveLabel(for: trigger, labels: labels)
        let key = TriggerText.key(trigger)
        var positives = 0
        var detected = 0
        var latencies: [Double] = []
        var outside = 0
        var negatives = 0
        var negativeSeconds = 0.0
        var falseAccepts = 0
        var filesWithFalseAccept = 0
        for file in files {
            let own = file.detections.filter { TriggerText.key($0.trigger) == key }
            if file.label == positiveLabel {
                positives += 1
                let start = file.phraseStartSeconds ?? 0
                let end = file.phraseEndSeconds ?? file.durationSeconds
                let inWindow = own.filter { $0.atSeconds >= start && $0.atSeconds <= end + window }
                outside += own.count - inWindow.count
                if let first = inWindow.min(by: { $0.atSeconds < $1.atSeconds }) {
                    detected += 1
                    latencies.append(((first.decidedAtSeconds ?? first.atSeconds) - end) * 1000)
                }
            } else {
                negatives += 1
                negativeSeconds += file.durationSeconds
                let distinct = WakeBenchStatistics.distinct(own.map(\.atSeconds), refractory: refractory).count
                falseAccepts += distinct
                if distinct > 0 { filesWithFalseAccept += 1 }
            }
        }
        let hours = negativeSeconds / 3600
        let missed = positives - detected
        return WakeBenchMetric(
            condition: condition, trigger: trigger, engine: engine, positiveLabel: positiveLabel, positives: positives,
            detected: detected, missed: missed, frr: positives > 0 ? Double(missed) / Double(positives) : nil,
            frrCI95: WakeBenchStatistics.wilson(missed, of: positives).map { [$0.lowerBound, $0.upperBound] },
            negatives: negatives, negativeHours: hours, falseAccepts: falseAccepts,
            negativeFilesWithFalseAccept: filesWithFalseAccept,
            faPerClip: negatives > 0 ? Double(falseAccepts) / Double(negatives) : nil,
            faPerHour: hours > 0 ? Double(falseAccepts) / hours : nil,
            faPerHourCI95: hours > 0
                ? {
                    let interval = WakeBenchStatistics.poisson(falseAccepts)
                    return [interval.lowerBound / hours, interval.upperBound / hours]
                }() : nil,
            latencyMs: WakeBenchStatistics.summary(latencies), detectionsOutsideWindow: outside)
    }
}
