import ClawTalkAudio
import Foundation

/// The audio format a transcription relay session states (`audio.inputEncoding`,
/// `audio.inputSampleRateHz`; talk.md §9.1), and how one chunk is written in it.
///
/// Current upstream takes G.711 μ-law at 8 kHz only (`g711_ulaw`, also spelled `mulaw`/`ulaw`);
/// A-law (`g711_alaw`/`alaw`) and pcm16 LE (older builds: 24 kHz) are produced too. Anything else,
/// or a rate outside 8–48 kHz, is not a format the node can send: ``init(encoding:sampleRate:)``
/// answers nil and the caller falls back to local speech-to-text.
public struct RelayAudioFormat: Sendable, Hashable {
    /// How samples become bytes.
    public enum Encoding: String, Sendable, Hashable {
        /// G.711 μ-law, one byte per sample.
        case muLaw = "g711_ulaw"
        /// G.711 A-law, one byte per sample.
        case aLaw = "g711_alaw"
        /// Signed 16-bit little-endian, two bytes per sample.
        case pcm16
    }

    /// The encoding.
    public var encoding: Encoding
    /// Samples per second (mono).
    public var sampleRate: Int

    /// The format a session states, or nil when the node cannot produce it. Spellings are
    /// compared case-insensitively.
    public init?(encoding stated: String, sampleRate: Int) {
        guard (8_000...48_000).contains(sampleRate) else { return nil }
        switch stated.lowercased() {
        case "g711_ulaw", "mulaw", "ulaw", "pcmu", "g711-ulaw": encoding = .muLaw
        case "g711_alaw", "alaw", "pcma", "g711-alaw": encoding = .aLaw
        case "pcm16", "pcm_s16le", "s16le": encoding = .pcm16
        default: return nil
        }
        self.sampleRate = sampleRate
    }

    /// The bytes of `samples` in this encoding.
    public func bytes(_ samples: ArraySlice<Int16>) -> [UInt8] {
        switch encoding {
        case .muLaw: return G711.encodeMuLaw(samples)
        case .aLaw: return G711.encodeALaw(samples)
        case .pcm16:
            var bytes = [UInt8]()
            bytes.reserveCapacity(samples.count * 2)
            for sample in samples {
                let value = UInt16(bitPattern: sample)
                bytes.append(UInt8(value & 0xff))
                bytes.append(UInt8(value >> 8))
            }
            return bytes
        }
    }

    /// `audioBase64` of one chunk.
    public func base64(_ samples: ArraySlice<Int16>) -> String {
        Data(bytes(samples)).base64EncodedString()
    }
}
