public import ClawTalkAudio

/// One thing for ``PlaybackController`` to play: a whole buffer, or a stream of buffers that
/// are still being produced (sentence-by-sentence synthesis, a progressively decoded clip).
///
/// Decoding is the caller's job (`ClipDecoder` for gateway clips,
/// `EspeakEngine` for local speech); the controller plays s16 PCM at the item's own rate and
/// channel count and lets the sound server convert it for the sink.
public enum PlaybackItem: Sendable {
    /// A complete buffer.
    case pcm(PCMBuffer, kind: Kind)
    /// Buffers that arrive over time, all in `format`; playback starts with the first buffer and
    /// the item ends when the stream finishes. A buffer in another format fails the item with
    /// ``PlaybackError/formatMismatch(expected:received:)``; a thrown error fails it after what
    /// already arrived has played.
    case stream(AsyncThrowingStream<PCMBuffer, any Error>, format: AudioFormat, kind: Kind)

    /// What the audio is, for timing reports and logs.
    public enum Kind: String, Sendable, Hashable {
        /// A spoken reply (gateway clip or local speech).
        case speech
        /// An earcon (a `Chime`).
        case chime
    }

    /// The item's kind.
    public var kind: Kind {
        switch self {
        case .pcm(_, let kind), .stream(_, _, let kind): kind
        }
    }

    /// The format the item's samples are in.
    public var format: AudioFormat {
        switch self {
        case .pcm(let buffer, _): buffer.format
        case .stream(_, let format, _): format
        }
    }
}
