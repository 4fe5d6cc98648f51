import ClawTalkAudio
import ClawTalkTesting
import Foundation
import Testing

@Suite struct WAVFileTests {
    @Test func canonicalHeaderIsByteExact() {
        let pcm = PCMBuffer(format: AudioFormat(sampleRate: 16000, channels: 1), samples: [1, -2, 0x1234])
        let data = WAVFile.encode(pcm)
        let expected: [UInt8] =
            Array("RIFF".utf8) + le(UInt32(36 + 6)) + Array("WAVEfmt ".utf8) + le(UInt32(16))
            + le(UInt16(1)) + le(UInt16(1)) + le(UInt32(16000)) + le(UInt32(32000)) + le(UInt16(2)) + le(UInt16(16))
            + Array("data".utf8) + le(UInt32(6))
            + [0x01, 0x00, 0xFE, 0xFF, 0x34, 0x12]
        #expect(Array(data) == expected)
        #expect(WAVFile.canonicalHeaderSize == 44)
    }

    @Test(arguments: [(16000, 1), (22050, 2), (48000, 2), (8000, 1)])
    func roundTripKeepsSamplesAndFormat(rate: Int, channels: Int) throws {
        let samples = (0..<(rate / 50 * channels)).map { Int16(truncatingIfNeeded: $0 &* 7919) }
        let pcm = PCMBuffer(format: AudioFormat(sampleRate: rate, channels: channels), samples: samples)
        let data = WAVFile(pcm: pcm).data
        #expect(data.count == 44 + samples.count * 2)
        let file = try WAVFile(data: data)
        #expect(file.pcm == pcm)
        #expect(file.sourceEncoding == .signedInt(bits: 16))
        #expect(!file.isTruncated)
        // Re-encoding the decoded file reproduces the same bytes.
        #expect(WAVFile.encode(file.pcm) == data)
    }

    /// sox renders the same undithered tone at several depths; each must decode close to the 16-bit one.
    @Test(arguments: [
        (["-b", "16"], 1, WAVFile.SampleEncoding.signedInt(bits: 16), 0),
        (["-b", "24"], 1, .signedInt(bits: 24), 1),
        (["-b", "32"], 1, .signedInt(bits: 32), 1),
        (["-e", "floating-point", "-b", "32"], 1, .float(bits: 32), 1),
        (["-e", "floating-point", "-b", "64"], 1, .float(bits: 64), 1),
        (["-b", "8"], 1, .unsignedInt8, 300),
        (["-e", "mu-law"], 1, .muLaw, 1100),
        (["-e", "a-law"], 1, .aLaw, 1100),
        (["-b", "16"], 2, .signedInt(bits: 16), 0),
        (["-b", "24"], 3, .signedInt(bits: 24), 1),
    ])
    func decodesSoxFiles(options: [String], channels: Int, encoding: WAVFile.SampleEncoding, tolerance: Int) throws {
        let dir = try TempDirectory(prefix: "audio")
        let reference = dir.path("ref.wav")
        let probe = dir.path("probe.wav")
        let synth = ["synth", "0.2", "sine", "440", "vol", "0.5"]
        try runTool("sox", ["-D", "-n", "-r", "22050", "-c", "\(channels)", "-b", "16", reference] + synth)
        try runTool("sox", ["-D", "-n", "-r", "22050", "-c", "\(channels)"] + options + [probe] + synth)

        let expected = try WAVFile.decode(Data(contentsOf: URL(fileURLWithPath: reference)))
        let file = try WAVFile(data: Data(contentsOf: URL(fileURLWithPath: probe)))
        #expect(file.sourceEncoding == encoding)
        #expect(!file.isTruncated)
        #expect(file.pcm.format == AudioFormat(sampleRate: 22050, channels: channels))
        #expect(file.pcm.frameCount == 4410)
        #expect(file.pcm.samples.count == expected.samples.count)
        let worst = zip(file.pcm.samples, expected.samples).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= tolerance)
        // The tone really is there: about 0.5 full scale.
        #expect(abs(LevelMeter.peak(file.pcm.samples) - 0.5) < 0.02)
    }

    @Test func skipsUnknownChunksWithOddPadding() throws {
        let samples: [Int16] = [100, -100, 200, -200]
        let body = samples.flatMap { le($0) }
        var bytes: [UInt8] = Array("RIFF".utf8) + le(UInt32(0)) + Array("WAVE".utf8)
        bytes += Array("junk".utf8) + le(UInt32(3)) + [9, 9, 9, 0]  // odd chunk + pad byte
        bytes += Array("fmt ".utf8) + le(UInt32(16)) + le(UInt16(1)) + le(UInt16(2)) + le(UInt32(8000))
        bytes += le(UInt32(32000)) + le(UInt16(4)) + le(UInt16(16))
        bytes += Array("LIST".utf8) + le(UInt32(5)) + Array("abcde".utf8) + [0]
        bytes += Array("data".utf8) + le(UInt32(UInt32(body.count))) + body
        bytes += Array("tail".utf8) + le(UInt32(2)) + [1, 2]
        let file = try WAVFile(data: Data(bytes))
        #expect(file.pcm.format == AudioFormat(sampleRate: 8000, channels: 2))
        #expect(file.pcm.samples == samples)
        #expect(!file.isTruncated)
    }

    @Test func dataChunkPastTheEndIsTruncatedToWholeFrames() throws {
        let pcm = PCMBuffer(format: AudioFormat(sampleRate: 16000, channels: 2), samples: (0..<100).map { Int16($0) })
        var data = WAVFile.encode(pcm)
        data.removeLast(5)  // 195 bytes of data left: 48 whole stereo frames
        let file = try WAVFile(data: data)
        #expect(file.isTruncated)
        #expect(file.pcm.samples == Array(pcm.samples.prefix(96)))

        // A streaming writer's 0xFFFFFFFF size decodes everything that is there.
        var streaming = WAVFile.encode(pcm)
        streaming.replaceSubrange(40..<44, with: le(UInt32.max))
        let streamed = try WAVFile(data: streaming)
        #expect(streamed.pcm == pcm)
        #expect(streamed.isTruncated)
    }

    @Test(arguments: [
        (Data(), AudioError.invalidWAV(reason: "empty input")),
        (Data("RIF".utf8), .truncated(what: "RIFF header")),
        (Data("RIFF\u{0}\u{0}".utf8), .truncated(what: "RIFF header")),
        (Data("RIFX\u{0}\u{0}\u{0}\u{0}WAVE".utf8), .invalidWAV(reason: "RIFX files are not supported")),
        (Data("ID3\u{3}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}".utf8), .invalidWAV(reason: "missing RIFF signature")),
        (Data("RIFF\u{0}\u{0}\u{0}\u{0}AVI LIST".utf8), .invalidWAV(reason: "RIFF form is \"AVI \", not WAVE")),
        (Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8), .invalidWAV(reason: "no fmt chunk")),
        (Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8), .truncated(what: "chunk header")),
        (Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt \u{10}\u{0}\u{0}\u{0}\u{1}\u{0}".utf8), .truncated(what: "fmt chunk")),
    ])
    func rejectsBrokenHeaders(data: Data, error: AudioError) {
        #expect(throws: error) { try WAVFile(data: data) }
    }

    @Test func rejectsBadFormatChunks() {
        func file(tag: UInt16, channels: UInt16, rate: UInt32, align: UInt16, bits: UInt16) -> Data {
            var bytes: [UInt8] = Array("RIFF".utf8) + le(UInt32(0)) + Array("WAVEfmt ".utf8) + le(UInt32(16))
            bytes += le(tag) + le(channels) + le(rate) + le(rate * UInt32(align)) + le(align) + le(bits)
            bytes += Array("data".utf8) + le(UInt32(4)) + [0, 0, 0, 0]
            return Data(bytes)
        }
        #expect(throws: AudioError.unsupportedEncoding(formatTag: 2, bitsPerSample: 4)) {
            try WAVFile(data: file(tag: 2, channels: 1, rate: 8000, align: 1, bits: 4))
        }
        #expect(throws: AudioError.unsupportedEncoding(formatTag: 3, bitsPerSample: 16)) {
            try WAVFile(data: file(tag: 3, channels: 1, rate: 8000, align: 2, bits: 16))
        }
        #expect(throws: AudioError.invalidWAV(reason: "0 channels")) {
            try WAVFile(data: file(tag: 1, channels: 0, rate: 8000, align: 2, bits: 16))
        }
        #expect(throws: AudioError.invalidWAV(reason: "sample rate 0 Hz")) {
            try WAVFile(data: file(tag: 1, channels: 1, rate: 0, align: 2, bits: 16))
        }
        #expect(throws: AudioError.invalidWAV(reason: "block align 3 does not match 1 × 2 bytes")) {
            try WAVFile(data: file(tag: 1, channels: 1, rate: 8000, align: 3, bits: 16))
        }
        #expect(throws: AudioError.invalidWAV(reason: "no data chunk")) {
            var data = file(tag: 1, channels: 1, rate: 8000, align: 2, bits: 16)
            data.removeLast(12)
            return try WAVFile(data: data)
        }
    }

    /// Every prefix and many random corruptions of a valid file either decode or throw; none traps.
    @Test func damagedFilesNeverTrap() throws {
        let pcm = PCMBuffer(format: AudioFormat(sampleRate: 16000, channels: 2), samples: (0..<64).map { Int16($0) })
        let good = [UInt8](WAVFile.encode(pcm))
        var decodedPrefixes = 0
        for length in 0..<good.count {
            if (try? WAVFile(data: Data(good.prefix(length)))) != nil { decodedPrefixes += 1 }
        }
        // Prefixes from the data chunk header on decode (truncated); shorter ones throw.
        #expect(decodedPrefixes == good.count - 44)

        var generator = SeededGenerator(state: 42)
        for _ in 0..<2000 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<48, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if let file = try? WAVFile(data: Data(bytes)) {
                #expect(file.pcm.samples.count <= bytes.count)
            }
        }
        for seed in 0..<200 {
            #expect(throws: AudioError.self) { try WAVFile(data: randomBytes(Int(seed) * 3, seed: UInt64(seed))) }
        }
    }

    @Test func errorsDescribeThemselves() {
        #expect(
            AudioError.truncated(what: "fmt chunk").description == "truncated audio: input ends inside the fmt chunk")
        #expect(
            AudioError.unsupportedEncoding(formatTag: 0x55, bitsPerSample: 0).description
                == "unsupported WAV encoding: format tag 0x55, 0 bits per sample")
    }
}
