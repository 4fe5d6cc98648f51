import ClawTalkAudio
import ClawTalkCodecs

/// Turns played audio into the echo canceller's far-end reference: mono (channel average) at
/// ``PlaybackController/renderFormat`` (16 kHz), through a streaming soxr ``Resampler``.
///
/// Used by an item's feeder task, never by the playback thread (it allocates). Not Sendable:
/// one task owns it.
final class RenderReference {
    private let channels: Int
    private let resampler: Resampler?

    /// A converter for audio in `format`.
    init(format: AudioFormat) throws {
        channels = format.channels
        let target = PlaybackController.renderFormat.sampleRate
        resampler = format.sampleRate == target ? nil : try Resampler(from: format.sampleRate, to: target)
    }

    /// Converts the next block (whole frames); returns the reference samples ready so far.
    func convert(_ samples: ArraySlice<Int16>) throws -> [Int16] {
        let mono: [Int16]
        if channels == 1 {
            mono = Array(samples)
        } else {
            let base = samples.startIndex
            mono = (0..<(samples.count / channels)).map { frame in
                var sum = 0
                for channel in 0..<channels { sum += Int(samples[base + frame * channels + channel]) }
                return Int16(sum / channels)
            }
        }
        return try resampler?.process(mono) ?? mono
    }

    /// Ends the signal; returns the resampler's remaining output.
    func finish() throws -> [Int16] {
        try resampler?.flush() ?? []
    }
}
