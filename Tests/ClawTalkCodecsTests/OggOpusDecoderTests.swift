import ClawTalkAudio
import ClawTalkCodecs
import ClawTalkTesting
import Foundation
import Testing

@Suite struct OggOpusDecoderTests {
    /// sox tone → opusenc → Ogg Opus bytes.
    /// - Parameter maxDelay: opusenc's `--max-delay` in ms, i.e. roughly the audio per Ogg page.
    static func makeOpus(
        _ dir: TempDirectory, rate: Int, channels: Int = 1, seconds: Double = 1.0, maxDelay: Int = 1000
    ) throws -> Data {
        let wav = try soxTone(dir, name: "tone\(rate)x\(channels)", rate: rate, channels: channels, seconds: seconds)
        let opus = dir.path("tone\(rate)x\(channels).opus")
        try runTool("opusenc", ["--quiet", "--max-delay", "\(maxDelay)", wav, opus])
        return try read(opus)
    }

    @Test(arguments: [(16000, 1), (22050, 1), (48000, 2)])
    func decodesOpusencOutputAt48kHz(rate: Int, channels: Int) throws {
        let dir = try TempDirectory(prefix: "codecs")
        let data = try Self.makeOpus(dir, rate: rate, channels: channels)
        let decoder = try OggOpusDecoder(data: data)
        #expect(decoder.format == AudioFormat(sampleRate: 48000, channels: channels))
        let pcm = try decoder.decodeAll()
        #expect(pcm.format == decoder.format)
        #expect(decoder.holes == 0)
        // opusenc writes pre-skip and the end trim, so the length is exact to a few ms.
        try #require(abs(pcm.duration - 1.0) < 0.02, "duration \(pcm.duration)")
        let mono = firstChannel(pcm.samples, channels: channels)
        let middle = Array(mono[4800..<43200])
        let at440 = goertzel(middle, frequency: 440, sampleRate: 48000)
        #expect(at440 > 0.8)
        #expect(goertzel(middle, frequency: 880, sampleRate: 48000) < at440 / 50)
        #expect(abs(zeroCrossingFrequency(middle, sampleRate: 48000) - 440) < 10)
        #expect(try decoder.read() == nil)
    }

    @Test func staticDecodeMatchesTheReader() throws {
        let dir = try TempDirectory(prefix: "codecs")
        let data = try Self.makeOpus(dir, rate: 16000, seconds: 0.3)
        let decoder = try OggOpusDecoder(data: data)
        var blocks = PCMBuffer(format: decoder.format)
        while let block = try decoder.read() {
            #expect(block.count <= 5760)
            blocks.append(contentsOf: block)
        }
        #expect(try OggOpusDecoder.decode(data) == blocks)
    }

    @Test func garbageIsRejectedWithReadableErrors() throws {
        #expect(throws: CodecError.oggOpus(message: "empty input")) { try OggOpusDecoder(data: Data()) }
        let random = #expect(throws: CodecError.self) { try OggOpusDecoder(data: randomBytes(4096, seed: 9)) }
        #expect(random == .oggOpus(message: "not an Ogg Opus stream (OP_ENOTFORMAT)"))

        // A real stream whose Opus header was overwritten.
        let dir = try TempDirectory(prefix: "codecs")
        var data = try Self.makeOpus(dir, rate: 16000, seconds: 0.2)
        let head = try #require(data.range(of: Data("OpusHead".utf8)))
        data.replaceSubrange(head, with: Data("NopeHead".utf8))
        #expect(throws: CodecError.self) { try OggOpusDecoder(data: data) }
    }

    @Test func aCorruptPageIsSkippedAsAHole() throws {
        let dir = try TempDirectory(prefix: "codecs")
        let good = try Self.makeOpus(dir, rate: 16000, seconds: 1.0, maxDelay: 60)
        let clean = try OggOpusDecoder(data: good)
        #expect(!clean.isTruncated)
        let full = try clean.decodeAll()
        #expect(clean.holes == 0)

        // Flip one byte in the middle of the sixth page (well past the two header pages).
        var pages: [Int] = []
        var search = good.startIndex
        while let range = good.range(of: Data("OggS".utf8), in: search..<good.endIndex) {
            pages.append(range.lowerBound)
            search = range.upperBound
        }
        try #require(pages.count > 8)
        var bytes = [UInt8](good)
        bytes[(pages[5] + pages[6]) / 2] ^= 0x5A
        let decoder = try OggOpusDecoder(data: Data(bytes))
        let damaged = try decoder.decodeAll()
        #expect(decoder.holes == 1)
        #expect(!decoder.isTruncated)
        let lost = full.duration - damaged.duration
        #expect(lost > 0.01 && lost < 0.2, "lost \(lost) s")
    }

    @Test func randomDamageNeverTraps() throws {
        let dir = try TempDirectory(prefix: "codecs")
        let good = try Self.makeOpus(dir, rate: 16000, seconds: 0.5, maxDelay: 60)
        var generator = SeededGenerator(state: 7)
        for _ in 0..<50 {
            var bytes = [UInt8](good)
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            do {
                let pcm = try OggOpusDecoder.decode(Data(bytes))
                #expect(pcm.duration < 0.6)
            } catch let error as CodecError {
                guard case .oggOpus = error else { throw error }
            }
        }
    }

    /// Documented behaviour: a clip cut short decodes every complete page and is flagged.
    @Test func truncatedStreamDecodesItsCompletePages() throws {
        let dir = try TempDirectory(prefix: "codecs")
        let good = try Self.makeOpus(dir, rate: 16000, seconds: 1.0, maxDelay: 60)
        let decoder = try OggOpusDecoder(data: good.prefix(good.count / 2))
        let half = try decoder.decodeAll()
        #expect(decoder.isTruncated)
        #expect(half.duration > 0.3 && half.duration < 0.6, "duration \(half.duration)")
        #expect(goertzel(Array(half.samples[4800..<14400]), frequency: 440, sampleRate: 48000) > 0.8)
    }
}
