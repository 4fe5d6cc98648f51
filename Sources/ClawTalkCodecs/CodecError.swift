public import ClawTalkAudio

/// Why encoding, decoding or resampling audio failed.
public enum CodecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libopus refused an operation; `message` is `opus_strerror`'s text.
    case opus(operation: String, message: String)
    /// An Opus frame had a length libopus cannot encode (`expected` lists what would fit).
    case invalidFrameLength(samples: Int, expected: String)
    /// libmpg123 failed; `message` is its own error text.
    case mp3(message: String)
    /// The input held no MPEG audio frame that libmpg123 could decode.
    case noMPEGAudio
    /// The MP3 stream changed its sample rate or channel count midway.
    case formatChanged(from: AudioFormat, to: AudioFormat)
    /// libopusfile failed; `message` names the `OP_*` code in words.
    case oggOpus(message: String)
    /// libsoxr failed; `message` is its error string.
    case resampler(message: String)
    /// The clip's format is known but cannot be played (webm, AAC, a headerless format without a rate …).
    case unsupportedFormat(String)
    /// A WAV clip could not be read.
    case wav(AudioError)
    /// The clip is empty or otherwise unusable before any decoder ran.
    case invalidClip(String)

    /// One line for logs and error messages.
    public var description: String {
        switch self {
        case .opus(let operation, let message): "opus \(operation) failed: \(message)"
        case .invalidFrameLength(let samples, let expected):
            "opus frame of \(samples) samples is not a valid length (\(expected))"
        case .mp3(let message): "mp3 decoding failed: \(message)"
        case .noMPEGAudio: "mp3 decoding failed: no MPEG audio found"
        case .formatChanged(let from, let to): "mp3 stream changed format from \(from) to \(to)"
        case .oggOpus(let message): "ogg opus decoding failed: \(message)"
        case .resampler(let message): "resampling failed: \(message)"
        case .unsupportedFormat(let what): "unsupported audio format: \(what)"
        case .wav(let error): error.description
        case .invalidClip(let reason): "invalid audio clip: \(reason)"
        }
    }
}
