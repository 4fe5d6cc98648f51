import Foundation

/// An audio clip a scripted `talk.speak` / `tts.speak` returns inline as base64
/// (talk.md §7.1–§7.2).
public struct TestClip: Sendable, Equatable {
    /// The clip bytes.
    public var audio: [UInt8]
    /// `provider`.
    public var provider: String
    /// `outputFormat` (omitted when nil).
    public var outputFormat: String?
    /// `mimeType` (omitted when nil).
    public var mimeType: String?
    /// `fileExtension` (omitted when nil).
    public var fileExtension: String?
    /// `voiceCompatible` (omitted when nil; `tts.speak` never has it).
    public var voiceCompatible: Bool?

    /// A clip with the given fields.
    public init(
        audio: [UInt8], provider: String = "test", outputFormat: String?, mimeType: String? = nil,
        fileExtension: String? = nil, voiceCompatible: Bool? = nil
    ) {
        self.audio = audio
        self.provider = provider
        self.outputFormat = outputFormat
        self.mimeType = mimeType
        self.fileExtension = fileExtension
        self.voiceCompatible = voiceCompatible
    }

    /// Raw s16le mono 24 kHz: a sine of `frequency` Hz for `durationMs` at half scale.
    public static func pcm24000(durationMs: Int = 300, frequency: Double = 440) -> TestClip {
        let count = 24 * durationMs
        var bytes = [UInt8]()
        bytes.reserveCapacity(count * 2)
        for index in 0..<count {
            let value = Int16(16_383 * sin(2 * Double.pi * frequency * Double(index) / 24_000))
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        return TestClip(audio: bytes, provider: "elevenlabs", outputFormat: "pcm_24000", voiceCompatible: false)
    }

    /// MP3 bytes (e.g. made with `lame` in the test) labelled `mp3_44100_128`, `audio/mpeg`, `.mp3`.
    public static func mp3(_ bytes: [UInt8]) -> TestClip {
        TestClip(
            audio: bytes, provider: "elevenlabs", outputFormat: "mp3_44100_128", mimeType: "audio/mpeg",
            fileExtension: ".mp3", voiceCompatible: false)
    }

    /// Ogg Opus bytes (e.g. made with `opusenc`) labelled `opus_48000_64`, `audio/ogg`, `.opus`.
    public static func oggOpus(_ bytes: [UInt8]) -> TestClip {
        TestClip(
            audio: bytes, provider: "openai", outputFormat: "opus_48000_64", mimeType: "audio/ogg",
            fileExtension: ".opus", voiceCompatible: true)
    }

    /// A headerless clip without a known rate (`mulaw`): unplayable, so the node must fall back.
    public static func unplayable(byteCount: Int = 1_600) -> TestClip {
        TestClip(audio: [UInt8](repeating: 0x7F, count: byteCount), provider: "azure", outputFormat: "mulaw")
    }

    /// A `pcm_24000` clip of exactly `byteCount` bytes with a deterministic pseudo-random
    /// pattern, to check large responses arrive intact (checklist 43).
    public static func large(byteCount: Int) -> TestClip {
        var state: UInt32 = 0x1234_5678
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for index in 0..<byteCount {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
        return TestClip(audio: bytes, provider: "elevenlabs", outputFormat: "pcm_24000", voiceCompatible: false)
    }
}
