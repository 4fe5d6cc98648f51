/// A block of interleaved signed 16-bit PCM with its format: a decoded clip, a synthesized
/// sentence or a captured utterance.
public struct PCMBuffer: Sendable, Equatable {
    /// Format of ``samples``.
    public var format: AudioFormat
    /// Interleaved samples.
    public var samples: [Int16]

    /// Wraps samples in the given format.
    public init(format: AudioFormat, samples: [Int16] = []) {
        self.format = format
        self.samples = samples
    }

    /// Frames (samples per channel).
    public var frameCount: Int { samples.count / format.channels }

    /// Length in seconds.
    public var duration: Double { Double(frameCount) / Double(format.sampleRate) }

    /// Appends samples of the same format.
    public mutating func append(contentsOf other: some Sequence<Int16>) {
        samples.append(contentsOf: other)
    }
}
