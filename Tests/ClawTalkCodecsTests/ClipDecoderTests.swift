import ClawTalkAudio
import ClawTalkCodecs
import ClawTalkTesting
import Foundation
import Testing

@Suite struct ClipDecoderTests {
    @Test func decodesRawPCMAtTheNamedRate() throws {
        let samples = tone(frequency: 440, sampleRate: 24000, seconds: 0.25)
        let data = samples.withUnsafeBufferPointer { Data(buffer: $0) }
        let clip = try ClipDecoder.decodeClip(data: data, outputFormat: "pcm_24000")
        #expect(clip.format == .pcm(rate: 24000))
        #expect(clip.pcm == PCMBuffer(format: AudioFormat(sampleRate: 24000), samples: samples))
        #expect(!clip.isTruncated)
        #expect(clip.notes.isEmpty)

        let odd = try ClipDecoder.decodeClip(data: data + Data([0x7F]), outputFormat: "pcm_24000")
        #expect(odd.pcm.samples == samples)
        #expect(odd.isTruncated)
        #expect(odd.notes == ["dropped 1 trailing byte (odd pcm length)"])
    }

    @Test func decodesWAVMP3AndOggOpusClips() throws {
        let dir = try TempDirectory(prefix: "codecs")
        let wavPath = try soxTone(dir, name: "clip", rate: 22050, seconds: 0.5)
        try runTool("lame", ["--quiet", "-b", "64", wavPath, dir.path("clip.mp3")])
        try runTool("opusenc", ["--quiet", wavPath, dir.path("clip.opus")])

        let cases: [(Data, String?, String?, String?, ClipFormat, Int)] = [
            (try read(wavPath), "wav", nil, nil, .wav, 22050),
            (try read(wavPath), nil, nil, nil, .wav, 22050),
            (try read(dir.path("clip.mp3")), "mp3_22050_64", "audio/mpeg", ".mp3", .mp3, 22050),
            (try read(dir.path("clip.mp3")), nil, nil, nil, .mp3, 22050),
            (try read(dir.path("clip.opus")), "opus_48000_64", "audio/ogg", ".opus", .oggOpus, 48000),
            (try read(dir.path("clip.opus")), nil, nil, ".ogg", .oggOpus, 48000),
        ]
        for (data, outputFormat, mimeType, fileExtension, format, rate) in cases {
            let clip = try ClipDecoder.decodeClip(
                data: data, outputFormat: outputFormat, mimeType: mimeType, fileExtension: fileExtension)
            #expect(clip.format == format)
            #expect(clip.pcm.format == AudioFormat(sampleRate: rate))
            #expect(abs(clip.pcm.duration - 0.5) < 0.1, "\(format): \(clip.pcm.duration) s")
            #expect(!clip.isTruncated)
            let middle = Array(clip.pcm.samples[(rate / 10)..<(rate * 4 / 10)])
            #expect(goertzel(middle, frequency: 440, sampleRate: rate) > 0.8, "\(format)")
            #expect(try ClipDecoder.decode(data: data, outputFormat: outputFormat, mimeType: mimeType) == clip.pcm)
        }
    }

    @Test func decodesG711ClipsWithARate() throws {
        let clip = try ClipDecoder.decodeClip(data: Data([0xFF, 0x80, 0x00]), outputFormat: "ulaw_8000")
        #expect(clip.pcm == PCMBuffer(format: AudioFormat(sampleRate: 8000), samples: [0, 32124, -32124]))
        let aLaw = try ClipDecoder.decode(data: Data([0xD5, 0x55]), outputFormat: "alaw_16000")
        #expect(aLaw == PCMBuffer(format: AudioFormat(sampleRate: 16000), samples: [8, -8]))
    }

    @Test func unplayableAndBrokenClipsThrowClearErrors() throws {
        let webm = Data([0x1A, 0x45, 0xDF, 0xA3] + [UInt8](repeating: 0, count: 60))
        #expect(throws: CodecError.unsupportedFormat("webm/matroska")) { try ClipDecoder.decode(data: webm) }
        #expect(throws: CodecError.unsupportedFormat("audio/webm")) {
            try ClipDecoder.decode(data: webm, mimeType: "audio/webm")
        }
        #expect(throws: CodecError.unsupportedFormat("headerless raw-16khz-16bit-mono-pcm")) {
            try ClipDecoder.decode(data: Data([0, 0]), outputFormat: "raw-16khz-16bit-mono-pcm")
        }
        #expect(throws: CodecError.invalidClip("no audio bytes")) {
            try ClipDecoder.decode(data: Data(), outputFormat: "pcm_16000")
        }
        #expect(throws: CodecError.invalidClip("sample rate 0 Hz")) {
            try ClipDecoder.decode(data: Data([0, 0]), as: .pcm(rate: 0))
        }
        #expect(throws: CodecError.noMPEGAudio) {
            try ClipDecoder.decode(data: randomBytes(2048, seed: 3), outputFormat: "mp3_44100_128")
        }
        #expect(throws: CodecError.wav(.truncated(what: "RIFF header"))) {
            try ClipDecoder.decode(data: Data("RIFF".utf8), outputFormat: "wav")
        }
        let opusError = #expect(throws: CodecError.self) {
            try ClipDecoder.decode(data: randomBytes(512, seed: 4), outputFormat: "opus_48000_64")
        }
        #expect(opusError?.description == "ogg opus decoding failed: not an Ogg Opus stream (OP_ENOTFORMAT)")
        #expect(
            CodecError.unsupportedFormat("webm/matroska").description == "unsupported audio format: webm/matroska")
    }
}
