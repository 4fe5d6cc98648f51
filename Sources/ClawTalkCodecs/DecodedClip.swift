public import ClawTalkAudio

/// A decoded TTS clip with what the decoder noticed on the way.
public struct DecodedClip: Sendable, Equatable {
    /// The audio at the clip's own rate and channel count.
    public var pcm: PCMBuffer
    /// The format the clip was decoded as.
    public var format: ClipFormat
    /// True when the clip was cut short (partial sample or frame dropped, or less audio than announced).
    public var isTruncated: Bool
    /// Human-readable remarks for logs (e.g. "dropped 1 trailing byte"); empty when all was clean.
    public var notes: [String]

    /// Wraps decoder output.
    public init(pcm: PCMBuffer, format: ClipFormat, isTruncated: Bool = false, notes: [String] = []) {
        self.pcm = pcm
        self.format = format
        self.isTruncated = isTruncated
        self.notes = notes
    }
}
