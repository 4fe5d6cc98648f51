import ClawTalkAudio
import ClawTalkCodecs
import ClawTalkTesting
import Foundation
import Testing

@Suite struct MP3DecoderTests {
    /// sox tone → lame CBR 64 kbit/s → MP3Decoder.
    /// (lame picks a lower output rate for 44.1 kHz stereo at 64 kbit/s, so stereo uses 128.)
    static func makeMP3(_ dir: TempDirectory, rate: Int, channels: Int = 1, seconds: Double = 1.0) throws -> Data {
        let wav = try soxTone(dir, name: "tone\(rate)", rate: rate, channels: channels, seconds: seconds)
        let mp3 = dir.path("tone\(rate).mp3")
        try runTool("lame", ["--quiet", "-b", channels == 1 ? "64" : "128", wav, mp3])
        return try read(mp3)
    }

    @Test(arguments: [(22050, 1), (44100, 1), (44100, 2)])
    func decodesLameOutputAtItsNativeFormat(rate: Int, channels: Int) throws {
        let dir = try TempDirectory(prefix: "codecs")
        let data = try Self.makeMP3(dir, rate: rate, channels: channels)
        let decoder = try MP3Decoder()
        let pcm = try decoder.decodeAll(data)
        try #require(pcm.format == AudioFormat(sampleRate: rate, channels: channels))
        #expect(decoder.format == pcm.format)
        try #require(abs(pcm.duration - 1.0) < 0.1, "duration \(pcm.duration)")
        #expect(!decoder.isTruncated)
        #expect(decoder.decodedFrames == pcm.frameCount)
        let mono = firstChannel(pcm.samples, channels: channels)
        let middle = Array(mono[(rate / 10)..<(rate * 9 / 10)])
        let at440 = goertzel(middle, frequency: 440, sampleRate: rate)
        #expect(at440 > 0.8)
        for other in [220.0, 660.0, 1000.0, 3000.0] {
            #expect(goertzel(middle, frequency: other, sampleRate: rate) < at440 / 50)
        }
        #expect(abs(LevelMeter.peak(middle) - 0.5) < 0.1)
    }

    @Test func feedingInPiecesEqualsDecodingAtOnce() throws {
        let dir = try TempDirectory(prefix: "codecs")
        let data = try Self.makeMP3(dir, rate: 22050)
        let whole = try MP3Decoder().decodeAll(data)

        let decoder = try MP3Decoder()
        var pieces = PCMBuffer(format: whole.format)
        var offset = 0
        var piece = 1
        while offset < data.count {
            let end = min(data.count, offset + piece)
            if let pcm = try decoder.feed(data.subdata(in: offset..<end)) {
                #expect(pcm.format == whole.format)
                pieces.append(contentsOf: pcm.samples)
            }
            offset = end
            piece = piece * 3 + 7  // 1, 10, 37, 118, ... bytes: splits inside headers and frames
        }
        try decoder.finish()
        #expect(pieces == whole)
        #expect(decoder.format == whole.format)
    }

    /// Found by the clip_decode fuzz target (Fuzz/corpus/clip_decode/crash-format-change-in-one-feed):
    /// a format change inside one `feed` call relabelled the audio decoded before it with the new
    /// format (22 050 Hz mono samples played as 44 100 Hz stereo) instead of failing.
    @Test func formatChangeWithinOneFeedIsAnError() throws {
        let dir = try TempDirectory(prefix: "codecs")
        let mono = try Self.makeMP3(dir, rate: 22050, seconds: 0.3)
        let stereo = try Self.makeMP3(dir, rate: 44100, channels: 2, seconds: 0.3)
        #expect(
            throws: CodecError.formatChanged(
                from: AudioFormat(sampleRate: 22050, channels: 1), to: AudioFormat(sampleRate: 44100, channels: 2))
        ) {
            _ = try MP3Decoder().decodeAll(mono + stereo)
        }
    }

    @Test(arguments: Array(UInt64(1)...UInt64(16)))
    func randomBytesAreNoMPEGAudio(seed: UInt64) throws {
        let decoder = try MP3Decoder()
        #expect(throws: CodecError.noMPEGAudio) { try decoder.decodeAll(randomBytes(16 * 1024, seed: seed)) }
    }

    @Test func emptyAndTextInputAreNoMPEGAudio() throws {
        #expect(throws: CodecError.noMPEGAudio) { try MP3Decoder().decodeAll(Data()) }
        #expect(throws: CodecError.noMPEGAudio) {
            try MP3Decoder().decodeAll(Data(String(repeating: "hello ", count: 500).utf8))
        }
        #expect(CodecError.noMPEGAudio.description == "mp3 decoding failed: no MPEG audio found")
    }

    /// Documented behaviour: a cut-off MP3 decodes to the complete frames that arrived, flagged as truncated.
    @Test func truncatedFileGivesPartialAudioFlaggedAsTruncated() throws {
        let dir = try TempDirectory(prefix: "codecs")
        let data = try Self.makeMP3(dir, rate: 44100)
        let decoder = try MP3Decoder()
        let pcm = try decoder.decodeAll(data.prefix(data.count * 4 / 10))
        #expect(decoder.isTruncated)
        #expect(pcm.format == AudioFormat(sampleRate: 44100))
        try #require(abs(pcm.duration - 0.4) < 0.1, "duration \(pcm.duration)")
        let middle = Array(pcm.samples[4410..<(pcm.samples.count - 4410)])
        #expect(goertzel(middle, frequency: 440, sampleRate: 44100) > 0.8)
    }

    @Test func junkBeforeTheFirstFrameIsSkipped() throws {
        let dir = try TempDirectory(prefix: "codecs")
        let data = try Self.makeMP3(dir, rate: 22050)
        let clean = try MP3Decoder().decodeAll(data)
        let decoder = try MP3Decoder()
        let pcm = try decoder.decodeAll(Data(repeating: 0, count: 300) + data)
        #expect(pcm.format == clean.format)
        #expect(abs(pcm.duration - clean.duration) < 0.06)
    }
}
