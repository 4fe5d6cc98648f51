/// Sample rate and channel count of interleaved signed 16-bit little-endian PCM.
///
/// The node's internal format is ``speech`` (16 kHz mono); clips and espeak-ng keep their own rate
/// until they are resampled for a device.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// Samples per second per channel.
    public var sampleRate: Int
    /// Interleaved channels (1 = mono).
    public var channels: Int

    /// Creates a format; both values must be positive.
    public init(sampleRate: Int, channels: Int = 1) {
        precondition(sampleRate > 0 && channels > 0, "sample rate and channels must be positive")
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// 16 kHz mono: what capture delivers and what wake words and speech-to-text consume.
    public static let speech = AudioFormat(sampleRate: 16000, channels: 1)

    /// Samples (all channels) in `milliseconds` of audio.
    public func sampleCount(milliseconds: Int) -> Int {
        sampleRate * channels * milliseconds / 1000
    }

    /// Bytes per second of s16le audio in this format.
    public var bytesPerSecond: Int { sampleRate * channels * 2 }

    /// For example `16000 Hz mono`.
    public var description: String {
        "\(sampleRate) Hz \(channels == 1 ? "mono" : "\(channels) ch")"
    }
}
