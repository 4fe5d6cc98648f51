import ClawTalkCodecs
import Foundation
import Testing

@Suite struct ClipFormatTests {
    static func ogg(_ packet: [UInt8]) -> [UInt8] { Array("OggS".utf8) + [UInt8](repeating: 0, count: 24) + packet }
    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let outputFormats: [(String, ClipFormat?)] = [
        ("pcm_24000", .pcm(rate: 24000)),
        ("pcm_16000", .pcm(rate: 16000)),
        ("PCM_44100", .pcm(rate: 44100)),
        ("pcm", nil),
        ("pcm_fast", nil),
        ("pcm_0", nil),
        ("mp3_44100_128", .mp3),
        ("mp3_22050_32", .mp3),
        ("mp3", .mp3),
        ("opus_48000_64", .oggOpus),
        ("opus", .oggOpus),
        ("wav", .wav),
        ("wav_44100", .wav),
        ("riff-24khz-16bit-mono-pcm", .wav),
        ("audio-24khz-16bit-mono-wav", .wav),
        ("audio-24khz-48kbitrate-mono-mp3", .mp3),
        ("ogg-48khz-16bit-mono-opus", .oggOpus),
        ("webm-24khz-16bit-mono-opus", .unsupported("webm (webm-24khz-16bit-mono-opus)")),
        ("raw-16khz-16bit-mono-pcm", .unsupported("headerless raw-16khz-16bit-mono-pcm")),
        ("ulaw_8000", .muLaw(rate: 8000)),
        ("alaw_8000", .aLaw(rate: 8000)),
        ("mulaw", .unsupported("headerless mulaw without a sample rate")),
        ("alaw", .unsupported("headerless alaw without a sample rate")),
        ("aac", .unsupported("aac")),
        ("flac", .unsupported("flac")),
        ("auto", nil),
        ("", nil),
        ("something-new", nil),
    ]

    static let mimeTypes: [(String, ClipFormat?)] = [
        ("audio/mpeg", .mp3),
        ("audio/mp3", .mp3),
        ("audio/ogg", .oggOpus),
        ("audio/ogg; codecs=opus", .oggOpus),
        ("audio/ogg; codecs=vorbis", .unsupported("ogg vorbis")),
        ("audio/opus", .oggOpus),
        ("audio/wav", .wav),
        ("audio/x-wav", .wav),
        ("audio/L16; rate=24000", .pcm(rate: 24000)),
        ("audio/L16;rate=16000;channels=1", .pcm(rate: 16000)),
        ("audio/L16", .unsupported("audio/l16 without a sample rate or not mono")),
        ("audio/L16; rate=24000; channels=2", .unsupported("audio/l16 without a sample rate or not mono")),
        ("audio/PCMU; rate=8000", .muLaw(rate: 8000)),
        ("audio/webm", .unsupported("audio/webm")),
        ("application/octet-stream", nil),
        ("", nil),
    ]

    static let fileExtensions: [(String, ClipFormat?)] = [
        (".mp3", .mp3), ("mp3", .mp3), (".opus", .oggOpus), (".ogg", .oggOpus), (".OGA", .oggOpus),
        (".wav", .wav), (".webm", .unsupported("webm")), (".pcm", nil), ("", nil),
    ]

    static let magicBytes: [([UInt8], ClipFormat?)] = [
        ([UInt8]("ID3\u{4}\u{0}".utf8), .mp3),
        ([0xFF, 0xFB, 0x90, 0x64], .mp3),  // MPEG-1 Layer III
        ([0xFF, 0xF3, 0x64, 0xC4], .mp3),  // MPEG-2 Layer III
        ([0xFF, 0xE3, 0x18, 0xC4], .mp3),  // MPEG-2.5 Layer III
        ([0xFF, 0xF1, 0x50, 0x80], .unsupported("aac (adts)")),
        ([0xFF, 0xEB, 0x90, 0x64], nil),  // reserved MPEG version
        ([UInt8]("RIFF\u{24}\u{0}\u{0}\u{0}WAVEfmt ".utf8), .wav),
        ([UInt8]("RIFF\u{24}\u{0}\u{0}\u{0}AVI LIST".utf8), nil),
        (ogg(ascii("OpusHead")), .oggOpus),
        (ogg([0x01] + ascii("vorbis")), .unsupported("ogg vorbis")),
        ([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42], .unsupported("webm/matroska")),
        ([UInt8]("fLaC".utf8), .unsupported("flac")),
        (ascii("\u{0}\u{0}\u{0} ftypM4A "), .unsupported("mp4/m4a")),
        ([0x00, 0x01, 0x02, 0x03], nil),
        ([], nil),
    ]

    @Test(arguments: outputFormats)
    func readsOutputFormats(name: String, expected: ClipFormat?) {
        #expect(ClipFormat(outputFormat: name) == expected)
    }

    @Test(arguments: mimeTypes)
    func readsMimeTypes(mime: String, expected: ClipFormat?) {
        #expect(ClipFormat(mimeType: mime) == expected)
    }

    @Test(arguments: fileExtensions)
    func readsFileExtensions(ext: String, expected: ClipFormat?) {
        #expect(ClipFormat(fileExtension: ext) == expected)
    }

    @Test(arguments: magicBytes)
    func sniffsMagicBytes(bytes: [UInt8], expected: ClipFormat?) {
        #expect(ClipFormat(magicBytes: Data(bytes)) == expected)
    }

    @Test func detectionFollowsTheContractOrder() {
        let wavBytes = Data("RIFF\u{24}\u{0}\u{0}\u{0}WAVEfmt ".utf8)
        // outputFormat wins over everything.
        #expect(
            ClipFormat.detect(data: wavBytes, outputFormat: "pcm_24000", mimeType: "audio/mpeg") == .pcm(rate: 24000))
        // Unusable outputFormat → mimeType.
        #expect(
            ClipFormat.detect(data: wavBytes, outputFormat: "auto", mimeType: "audio/mpeg", fileExtension: ".ogg")
                == .mp3)
        // Unknown mimeType → file extension.
        #expect(
            ClipFormat.detect(data: wavBytes, mimeType: "application/octet-stream", fileExtension: ".ogg") == .oggOpus)
        // Nothing declared → magic bytes.
        #expect(ClipFormat.detect(data: wavBytes) == .wav)
        #expect(ClipFormat.detect(data: Data([0x1A, 0x45, 0xDF, 0xA3])) == .unsupported("webm/matroska"))
        // Nothing at all.
        #expect(ClipFormat.detect(data: Data([1, 2, 3, 4])) == .unsupported("unrecognised audio data"))
        #expect(
            ClipFormat.detect(data: Data([1, 2, 3, 4]), outputFormat: "pcm")
                == .unsupported("headerless pcm without a sample rate"))
        #expect(
            ClipFormat.detect(data: Data([1, 2]), outputFormat: "pcm", mimeType: "audio/L16; rate=22050")
                == .pcm(rate: 22050))
        #expect(ClipFormat.pcm(rate: 24000).isPlayable)
        #expect(!ClipFormat.unsupported("webm").isPlayable)
        #expect(ClipFormat.pcm(rate: 24000).description == "pcm 24000 Hz")
    }
}
