/// One direction's audio format as a realtime session states it (`audio.inputEncoding` /
/// `inputSampleRateHz`, `outputEncoding` / `outputSampleRateHz`; talk.md §9.2). Today both are
/// pcm16 little-endian mono at 24 kHz; clawtalk refuses (native Talk) any it cannot produce or play.
public struct RealtimeAudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// The stated encoding, lowercased (`pcm16` when the gateway states none).
    public var encoding: String
    /// The stated sample rate (24000 when the gateway states none).
    public var sampleRateHz: Int

    /// The format the contract names today.
    public static let pcm16At24k = RealtimeAudioFormat(encoding: "pcm16", sampleRateHz: 24_000)

    /// A format record.
    public init(encoding: String, sampleRateHz: Int) {
        self.encoding = encoding.lowercased()
        self.sampleRateHz = sampleRateHz
    }

    /// Whether clawtalk can produce and play it: linear 16-bit PCM (`pcm16`, `pcm_s16le`,
    /// `s16le`, `linear16`) at 8–48 kHz.
    public var isSupported: Bool {
        ["pcm16", "pcm_s16le", "s16le", "linear16"].contains(encoding) && (8_000...48_000).contains(sampleRateHz)
    }

    /// Samples in one 20 ms chunk.
    public var samplesPer20ms: Int { sampleRateHz / 50 }

    /// `pcm16@24000`.
    public var description: String { "\(encoding)@\(sampleRateHz)" }
}
