import ClawTalkAudio
import ClawTalkCodecs
import ClawTalkTesting
import Testing

@Suite struct ResamplerTests {
    @Test(arguments: [(22050, 16000), (16000, 48000), (44100, 24000), (24000, 22050), (8000, 16000)])
    func toneKeepsItsFrequencyAndTheLengthFollowsTheRatio(from: Int, to: Int) throws {
        let input = PCMBuffer(
            format: AudioFormat(sampleRate: from), samples: tone(frequency: 1000, sampleRate: from, seconds: 0.5))
        let output = try Resampler.resample(input, to: to)
        #expect(output.format == AudioFormat(sampleRate: to))
        let expectedCount = Double(input.samples.count) * Double(to) / Double(from)
        #expect(abs(Double(output.samples.count) - expectedCount) <= 2, "\(output.samples.count) vs \(expectedCount)")
        let middle = Array(output.samples[(to / 20)..<(output.samples.count - to / 20)])
        #expect(goertzel(middle, frequency: 1000, sampleRate: to) > 0.95)
        #expect(abs(zeroCrossingFrequency(middle, sampleRate: to) - 1000) < 5)
        #expect(abs(LevelMeter.rms(middle) - 0.5 / 2.0.squareRoot()) < 0.01)
    }

    @Test func streamingInOddChunksEqualsOneShot() throws {
        let input = tone(frequency: 1000, sampleRate: 22050, seconds: 0.5)
        let oneShot = try Resampler.resample(
            PCMBuffer(format: AudioFormat(sampleRate: 22050), samples: input), to: 16000)

        let resampler = try Resampler(from: 22050, to: 16000)
        var streamed: [Int16] = []
        var offset = 0
        for size in [1, 7, 0, 333, 2, 1021, 97, 4096] where offset < input.count {
            let end = min(input.count, offset + size)
            streamed += try resampler.process(Array(input[offset..<end]))
            offset = end
        }
        streamed += try resampler.process(Array(input[offset...]))
        streamed += try resampler.flush()
        #expect(streamed.count == oneShot.samples.count)
        let worst = zip(streamed, oneShot.samples).map { abs(Int($0) - Int($1)) }.max() ?? .max
        #expect(worst <= 2)
    }

    @Test func flushClearsTheResamplerForTheNextSignal() throws {
        let resampler = try Resampler(from: 16000, to: 8000)
        let input = tone(frequency: 500, sampleRate: 16000, seconds: 0.1)
        let first = try resampler.process(input) + resampler.flush()
        let second = try resampler.process(input) + resampler.flush()
        #expect(first == second)
        #expect(abs(first.count - 800) <= 1)
    }

    @Test func stereoStaysInterleaved() throws {
        let left = tone(frequency: 400, sampleRate: 16000, seconds: 0.25)
        let right = tone(frequency: 1200, sampleRate: 16000, seconds: 0.25)
        let stereo = zip(left, right).flatMap { [$0, $1] }
        let output = try Resampler.resample(
            PCMBuffer(format: AudioFormat(sampleRate: 16000, channels: 2), samples: stereo), to: 48000)
        #expect(output.format.channels == 2)
        let outLeft = Array(firstChannel(output.samples, channels: 2).dropFirst(2400).dropLast(2400))
        let outRight = Array(
            firstChannel(Array(output.samples.dropFirst()), channels: 2).dropFirst(2400).dropLast(2400))
        #expect(goertzel(outLeft, frequency: 400, sampleRate: 48000) > 0.95)
        #expect(goertzel(outRight, frequency: 1200, sampleRate: 48000) > 0.95)
    }

    @Test func sameRateIsReturnedUnchangedAndBadInputThrows() throws {
        let pcm = PCMBuffer(format: AudioFormat(sampleRate: 16000), samples: [1, 2, 3])
        #expect(try Resampler.resample(pcm, to: 16000) == pcm)
        #expect(throws: CodecError.self) { try Resampler(from: 0, to: 16000) }
        let stereo = try Resampler(from: 16000, to: 8000, channels: 2)
        #expect(throws: CodecError.self) { try stereo.process([1, 2, 3]) }
        #expect(try stereo.process([]) == [])
    }
}
