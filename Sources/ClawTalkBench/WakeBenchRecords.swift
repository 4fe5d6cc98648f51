/// The `--json` document of `clawtalk bench wake`: one record per input file and condition,
/// enough to recompute every figure (see ``WakeBenchReport``).
struct WakeBenchReport: Codable, Sendable {
    /// Version of this layout.
    var schemaVersion = 1
    /// Where the recordings came from.
    var dataset: DatasetInfo
    /// The engines and the triggers each listened for.
    var engines: [EngineInfo]
    /// Threshold in use per trigger (microWakeWord cutoff or PocketSphinx keyphrase threshold).
    var thresholds: [String: Double]
    /// The transcript verifier (`none`, `pocketsphinx`, …).
    var verifier: String
    /// The clean condition's records (the schema).
    var files: [FileRecord]
    /// Every condition, the clean one included, each with its own records.
    var conditions: [ConditionRecord]
    /// Figures per condition and trigger.
    var metrics: [WakeBenchMetric]
    /// Threshold sweep (stage 1 only), when requested.
    var roc: [ROCPoint]
    /// Run time of the whole benchmark.
    var runtime: RuntimeInfo

    struct DatasetInfo: Codable, Sendable {
        var path: String
        var manifestSHA256: String
        var files: Int
        var labels: [String: Int]
    }

    struct EngineInfo: Codable, Sendable {
        var name: String
        var triggers: [String]
    }

    /// One input file under one condition.
    struct FileRecord: Codable, Sendable {
        /// Relative path, e.g. `computer/x.wav`.
        var path: String
        /// The folder it came from.
        var label: String
        var durationSeconds: Double
        /// Start and end of the first and last 10 ms frame above −40 dBFS RMS in the clean file (nil when silent).
        var phraseStartSeconds: Double?
        var phraseEndSeconds: Double?
        /// Every wake the full pipeline (stage 1 and verifier) would have acted on.
        var detections: [Detection]
        /// Speech segments the Whisper keyword scorer was sent for this file (nil without one):
        /// 0 means the segmenter never confirmed speech, so no transcript was made.
        var scorerSegments: Int? = nil
    }

    struct Detection: Codable, Sendable {
        var trigger: String
        var engine: String
        /// Stage-1 detection time, seconds from the start of the file.
        var atSeconds: Double
        var score: Double
        /// When the verifier's decision could be made (only with a verifier).
        var decidedAtSeconds: Double?
    }

    struct ConditionRecord: Codable, Sendable {
        /// `clean` or `pink-<snr>dB`.
        var name: String
        var noise: String?
        var snrDb: Double?
        var seed: UInt64?
        var files: [FileRecord]
    }

    struct ROCPoint: Codable, Sendable {
        var engine: String
        var trigger: String
        var condition: String
        var threshold: Double
        var positives: Int
        var missed: Int
        var frr: Double?
        var falseAccepts: Int
        var faPerHour: Double
    }

    struct RuntimeInfo: Codable, Sendable {
        var wallSeconds: Double
        var cpuSeconds: Double
        /// Audio pushed through the main pipeline (all conditions).
        var audioSeconds: Double
        var host: String
    }
}

/// Figures for one condition and trigger (benchmarks.md §3).
struct WakeBenchMetric: Codable, Sendable {
    var condition: String
    var trigger: String
    var engine: String
    /// Label of the positive folder, if the dataset has one for this trigger.
    var positiveLabel: String?
    var positives: Int
    var detected: Int
    var missed: Int
    var frr: Double?
    var frrCI95: [Double]?
    var negatives: Int
    var negativeHours: Double
    /// Distinct detections on negatives (2 s refractory).
    var falseAccepts: Int
    /// Negative files with at least one false accept.
    var negativeFilesWithFalseAccept: Int
    var faPerClip: Double?
    var faPerHour: Double?
    var faPerHourCI95: [Double]?
    /// Detection time after the end of the phrase, milliseconds.
    var latencyMs: LatencySummary?
    /// Detections in positive files outside `[phraseStart, phraseEnd + 1.5 s]`.
    var detectionsOutsideWindow: Int
}
