/// Per-frame speech energy against an adaptive noise floor, for endpointing (talk.md §5.4).
///
/// For each frame: RMS with full scale 1.0; the floor moves toward that RMS with α = 0.08 when
/// the frame is quieter than the floor and 0.01 when it is louder (fast down, slow up); then
/// speech is `RMS ≥ max(1e-3, floor × 6)`. The floor is updated before the comparison and never
/// drops below 1e-7, so a run of digital silence cannot make the next faint hiss count as speech
/// through the ratio alone (the 1e-3 minimum covers that too). It starts at 1e-4 (about −80 dBFS),
/// so the first frames are judged by the 1e-3 minimum until the floor has learned the room.
///
/// Because the floor also creeps up (1 % per frame) while sound continues, a steady noise such as
/// a fan stops counting as speech after a few hundred milliseconds; speech, which dips between
/// syllables, keeps the floor low.
public struct EnergyGate: Sendable, Equatable {
    /// What one frame was judged to be.
    public struct Decision: Sendable, Equatable {
        /// The frame's RMS, full scale 1.0.
        public var rms: Double
        /// The threshold the frame was compared with: `max(minimumSpeechRMS, floor × ratio)`.
        public var threshold: Double
        /// True when `rms ≥ threshold`.
        public var isSpeech: Bool
    }

    /// Floor smoothing when a frame is quieter than the floor (talk.md §5.4: 0.08).
    public static let fallingRate = 0.08
    /// Floor smoothing when a frame is at least as loud as the floor (talk.md §5.4: 0.01).
    public static let risingRate = 0.01
    /// Speech must be this many times the floor (talk.md §5.4: 6).
    public static let speechRatio = 6.0
    /// Speech must reach at least this RMS whatever the floor (talk.md §5.4: 1e-3, about −60 dBFS).
    public static let minimumSpeechRMS = 1e-3
    /// The floor never falls below this.
    public static let lowestFloor = 1e-7
    /// The floor a new gate starts from (1e-4, as in the macOS Talk runtime).
    public static let defaultInitialFloor = 1e-4

    /// The ratio to the floor that makes speech here (``speechRatio`` unless given).
    public let ratio: Double
    /// The current noise-floor estimate (RMS, full scale 1.0).
    public private(set) var noiseFloor: Double
    /// Timestamp passed with the most recent speech frame, if any (for silence windows).
    public private(set) var lastSpeechTimestamp: UInt64?

    /// Creates a gate whose floor starts at `initialFloor` (clamped to at least ``lowestFloor``);
    /// `ratio` replaces talk.md §5.4's 6 for uses that must hear speech closer to the noise (the wake
    /// segmenter: speech 10 dB above pink noise is only about 3 × its RMS).
    public init(initialFloor: Double = EnergyGate.defaultInitialFloor, ratio: Double = EnergyGate.speechRatio) {
        noiseFloor = max(initialFloor, Self.lowestFloor)
        self.ratio = ratio
    }

    /// The speech threshold for the current floor.
    public var threshold: Double { max(Self.minimumSpeechRMS, noiseFloor * ratio) }

    /// Measures one frame, updates the floor and decides speech; a speech frame's `timestamp`
    /// (any monotonic unit) is kept in ``lastSpeechTimestamp``.
    public mutating func process(_ frame: UnsafeBufferPointer<Int16>, timestamp: UInt64? = nil) -> Decision {
        let rms = Self.rms(frame)
        let alpha = rms < noiseFloor ? Self.fallingRate : Self.risingRate
        noiseFloor = max(noiseFloor + (rms - noiseFloor) * alpha, Self.lowestFloor)
        let threshold = self.threshold
        let isSpeech = rms >= threshold
        if isSpeech, let timestamp { lastSpeechTimestamp = timestamp }
        return Decision(rms: rms, threshold: threshold, isSpeech: isSpeech)
    }

    /// Array form of the buffer `process(_:timestamp:)`.
    public mutating func process(_ frame: [Int16], timestamp: UInt64? = nil) -> Decision {
        frame.withUnsafeBufferPointer { process($0, timestamp: timestamp) }
    }

    /// Forgets the learned floor and the last speech time.
    public mutating func reset(initialFloor: Double = EnergyGate.defaultInitialFloor) {
        self = EnergyGate(initialFloor: initialFloor, ratio: ratio)
    }

    /// Root mean square of `samples` with full scale 1.0 (−32768 maps to −1); 0 for no samples.
    public static func rms(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for sample in samples {
            let value = Double(sample)
            sum += value * value
        }
        return (sum / Double(samples.count)).squareRoot() / 32768
    }
}
