internal import COpus

/// The libopus application mode an ``OpusEncoder`` is tuned for.
public enum OpusApplication: Sendable, Hashable {
    /// Speech: best intelligibility at low bit rates (`OPUS_APPLICATION_VOIP`).
    case voip
    /// Music and mixed content (`OPUS_APPLICATION_AUDIO`).
    case audio
    /// Lowest algorithmic delay, no speech-only modes (`OPUS_APPLICATION_RESTRICTED_LOWDELAY`).
    case restrictedLowDelay

    var code: Int32 {
        switch self {
        case .voip: OPUS_APPLICATION_VOIP
        case .audio: OPUS_APPLICATION_AUDIO
        case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
        }
    }
}

/// Rates, channel counts and frame lengths libopus accepts.
enum OpusLimits {
    static let sampleRates = [8000, 12000, 16000, 24000, 48000]

    /// Samples per channel in the largest packet libopus can produce or decode (120 ms).
    static func maxFrameSamples(sampleRate: Int) -> Int { sampleRate * 120 / 1000 }

    /// Samples per channel for every frame duration Opus supports (2.5 … 120 ms).
    static func frameSamples(sampleRate: Int) -> [Int] {
        [
            sampleRate / 400, sampleRate / 200, sampleRate / 100, sampleRate / 50, sampleRate / 25,
            sampleRate * 3 / 50, sampleRate * 2 / 25, sampleRate / 10, sampleRate * 3 / 25,
        ]
    }

    /// `opus_strerror` text for a negative return code.
    static func message(_ code: Int32) -> String {
        String(cString: opus_strerror(code))
    }
}
