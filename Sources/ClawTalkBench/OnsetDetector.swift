/// Finds the first sample of a marker or an utterance in a stream of frames: the first sample
/// whose magnitude reaches `threshold` after at least `quietSamples` below it (so one burst
/// counts once). Pure; one instance per stream.
struct OnsetDetector: Sendable, Hashable {
    /// Magnitude that counts as sound (16-bit scale).
    var threshold: Int
    /// Samples below the threshold before the next onset can count.
    var quietSamples: Int
    private var quiet: Int

    /// A detector that is armed from the start.
    init(threshold: Int, quietSamples: Int) {
        self.threshold = threshold
        self.quietSamples = quietSamples
        quiet = quietSamples
    }

    /// The index in `frame` of the first onset in it, if any.
    mutating func onset(in frame: [Int16]) -> Int? {
        var found: Int?
        for (index, sample) in frame.enumerated() {
            if Int(sample.magnitude) >= threshold {
                if found == nil, quiet >= quietSamples { found = index }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return found
    }

    /// −40 dBFS on the 16-bit scale (benchmarks.md §2 truth level).
    static let minus40dBFS = 328
}
