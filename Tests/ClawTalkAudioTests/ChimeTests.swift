import ClawTalkAudio
import ClawTalkTesting
import Foundation
import Testing

@Suite("Chime")
struct ChimeTests {
    /// Goertzel power of `frequency` in `samples`, normalised by the length.
    private func power(_ samples: ArraySlice<Int16>, _ frequency: Double, sampleRate: Int) -> Double {
        let coefficient = 2 * cos(2 * .pi * frequency / Double(sampleRate))
        var s1 = 0.0
        var s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        return (s1 * s1 + s2 * s2 - coefficient * s1 * s2) / Double(max(samples.count, 1))
    }

    @Test(
        "built-in chimes last at most 150 ms at every rate", arguments: Chime.allCases,
        [8000, 16000, 22050, 24000, 44100, 48000])
    func duration(chime: Chime, sampleRate: Int) {
        let pcm = chime.render(sampleRate: sampleRate)
        #expect(pcm.format == AudioFormat(sampleRate: sampleRate, channels: 1))
        #expect(pcm.duration <= 0.150)
        #expect(pcm.duration * 1000 > Double(chime.milliseconds - 1))
        #expect(chime.milliseconds <= Chime.maximumMilliseconds)
    }

    @Test("the nominal lengths: trigger ~120 ms, send ~90 ms, error ~150 ms")
    func nominalLengths() {
        #expect((110...130).contains(Chime.trigger.milliseconds))
        #expect((80...100).contains(Chime.send.milliseconds))
        #expect((135...150).contains(Chime.error.milliseconds))
        #expect(Chime.trigger.notes.count == 2 && Chime.trigger.notes[1].frequency > Chime.trigger.notes[0].frequency)
        #expect(Chime.send.notes.count == 1)
        #expect(Chime.error.notes.count == 2 && Chime.error.notes[1].frequency < Chime.error.notes[0].frequency)
        #expect(Chime.error.notes.allSatisfy { $0.frequency < Chime.send.notes[0].frequency })
    }

    @Test("each note's segment carries its own fundamental (Goertzel)", arguments: Chime.allCases)
    func fundamentals(chime: Chime) {
        let rate = 24000
        let samples = chime.render(sampleRate: rate).samples
        let frequencies = chime.notes.map(\.frequency)
        var start = 0
        for note in chime.notes {
            let count = rate * note.milliseconds / 1000
            let segment = samples[start..<(start + count)]
            let own = power(segment, note.frequency, sampleRate: rate)
            // Louder than any other note of the chime, an octave up or a fifth down.
            let others = frequencies.filter { $0 != note.frequency } + [note.frequency * 2, note.frequency * 2 / 3]
            for other in others {
                #expect(
                    own > 50 * power(segment, other, sampleRate: rate),
                    "\(chime) note \(note.frequency) Hz vs \(other) Hz")
            }
            start += count
        }
        #expect(start == samples.count)
    }

    @Test("no clicks: starts and ends at zero, notes join smoothly", arguments: Chime.allCases)
    func noClicks(chime: Chime) throws {
        let rate = 48000
        let samples = chime.render(sampleRate: rate).samples
        let first = try #require(samples.first)
        let last = try #require(samples.last)
        #expect(abs(Int(first)) <= 16)
        #expect(abs(Int(last)) <= 16)
        // A sine of amplitude A at f changes by at most 2πfA/rate per sample; a click would jump more.
        let amplitude = pow(10, Chime.peakDBFS / 20) * 32767
        let highest = chime.notes.map(\.frequency).max() ?? 0
        let limit = 2 * Double.pi * highest * amplitude / Double(rate) * 1.05 + 2
        let jump = zip(samples, samples.dropFirst()).map { abs(Int($1) - Int($0)) }.max() ?? 0
        #expect(Double(jump) <= limit, "largest step \(jump), a clean sine allows \(limit)")
        // The first and last 2 ms are quieter than the middle (the fades are there).
        let edge = rate * 2 / 1000
        let middle = samples.count / 2
        #expect(
            LevelMeter.peak(Array(samples.prefix(edge))) < 0.6
                * LevelMeter.peak(Array(samples[(middle - edge)..<(middle + edge)])))
        #expect(
            LevelMeter.peak(Array(samples.suffix(edge))) < 0.6
                * LevelMeter.peak(Array(samples[(middle - edge)..<(middle + edge)])))
    }

    @Test("peak level is about -12 dBFS", arguments: Chime.allCases)
    func peakLevel(chime: Chime) {
        let level = LevelMeter.measure(chime.render(sampleRate: 16000).samples)
        #expect(abs(level.peakDBFS - Chime.peakDBFS) < 0.5, "peak \(level.peakDBFS) dBFS")
        #expect(level.dBFS < level.peakDBFS - 2.5)  // a sine's RMS is 3 dB under its peak
    }

    @Test("multi-channel rendering repeats the mono signal on every channel")
    func stereo() {
        let mono = Chime.trigger.render(sampleRate: 24000)
        let stereo = Chime.trigger.render(format: AudioFormat(sampleRate: 24000, channels: 2))
        #expect(stereo.frameCount == mono.frameCount)
        #expect(stride(from: 0, to: stereo.samples.count, by: 2).map { stereo.samples[$0] } == mono.samples)
        #expect(stride(from: 1, to: stereo.samples.count, by: 2).map { stereo.samples[$0] } == mono.samples)
    }

    @Test("load reads a custom WAV file at its own rate")
    func loadCustom() throws {
        let directory = try TempDirectory(prefix: "audio")
        let path = directory.path("ding.wav")
        let original = PCMBuffer(
            format: AudioFormat(sampleRate: 44100, channels: 2),
            samples: tone(frequency: 660, sampleRate: 44100, seconds: 0.2, amplitude: 0.3).flatMap { [$0, $0] })
        try WAVFile.encode(original).write(to: URL(fileURLWithPath: path))
        let loaded = try Chime.load(file: URL(fileURLWithPath: path))
        #expect(loaded == original)
    }

    @Test("load rejects a chime longer than the given maximum")
    func loadTooLong() throws {
        let directory = try TempDirectory(prefix: "audio")
        let path = directory.path("long.wav")
        let pcm = PCMBuffer(format: .speech, samples: tone(frequency: 500, sampleRate: 16000, seconds: 0.2))
        try WAVFile.encode(pcm).write(to: URL(fileURLWithPath: path))
        #expect(throws: Chime.LoadError.tooLong(path: path, milliseconds: 200, maximum: 150)) {
            try Chime.load(file: URL(fileURLWithPath: path), maximumMilliseconds: Chime.maximumMilliseconds)
        }
        #expect(try Chime.load(file: URL(fileURLWithPath: path), maximumMilliseconds: 200).frameCount == 3200)
    }

    @Test("load fails clearly for a missing file, a non-WAV file and an empty WAV")
    func loadErrors() throws {
        let directory = try TempDirectory(prefix: "audio")
        let missing = directory.path("nope.wav")
        do {
            _ = try Chime.load(file: URL(fileURLWithPath: missing))
            Issue.record("a missing file loaded")
        } catch {
            guard case .unreadable(let path, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(path == missing && !reason.isEmpty)
            #expect("\(error)".hasPrefix("cannot read chime file \(missing): "))
            print("missing chime: \(error)")
        }

        do {
            _ = try Chime.load(file: directory.url)
            Issue.record("a directory loaded")
        } catch {
            guard case .unreadable(_, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(!reason.isEmpty)
            print("directory as chime: \(error)")
        }

        let text = directory.path("notes.wav")
        try Data("not audio at all".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: Chime.LoadError.invalid(path: text, .invalidWAV(reason: "missing RIFF signature"))) {
            try Chime.load(file: URL(fileURLWithPath: text))
        }

        let empty = directory.path("empty.wav")
        try WAVFile.encode(PCMBuffer(format: .speech)).write(to: URL(fileURLWithPath: empty))
        #expect(throws: Chime.LoadError.empty(path: empty)) {
            try Chime.load(file: URL(fileURLWithPath: empty))
        }
        #expect("\(Chime.LoadError.empty(path: empty))" == "chime file \(empty) contains no audio")
    }
}
