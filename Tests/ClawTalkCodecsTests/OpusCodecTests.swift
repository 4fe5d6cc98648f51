import ClawTalkAudio
import ClawTalkCodecs
import ClawTalkTesting
import Foundation
import Testing

@Suite struct OpusCodecTests {
    @Test(arguments: [16000, 48000])
    func toneSurvivesAnEncodeDecodeRoundTrip(rate: Int) throws {
        let format = AudioFormat(sampleRate: rate)
        let encoder = try OpusEncoder(format: format, application: .voip)
        try encoder.setBitrate(24000)
        try encoder.setComplexity(5)
        try encoder.setInbandFEC(true)
        try encoder.setPacketLossPercent(5)
        try encoder.setDTX(false)
        let decoder = try OpusDecoder(format: format)
        let input = tone(frequency: 440, sampleRate: rate, seconds: 1.0)
        let frame = encoder.samplesPer20ms
        #expect(frame == rate / 50)

        var output: [Int16] = []
        var sizes: [Int] = []
        for start in stride(from: 0, to: input.count, by: frame) {
            let packet = try encoder.encode(Array(input[start..<(start + frame)]))
            sizes.append(packet.count)
            let pcm = try decoder.decode(packet)
            #expect(pcm.count == frame)
            output += pcm
        }
        #expect(sizes.count == 50)
        // 24 kbit/s over 20 ms is 60 bytes a packet on average.
        let average = Double(sizes.reduce(0, +)) / Double(sizes.count)
        #expect(average > 30 && average < 90, "average packet \(average) bytes")
        #expect(sizes.allSatisfy { $0 > 2 && $0 < 250 })

        let delay = try encoder.lookahead()
        #expect(delay > 0 && delay < rate / 50)
        let compared = (rate / 10)..<(input.count - rate / 10)
        let shifted = output[(compared.lowerBound + delay)..<(compared.upperBound + delay)]
        #expect(correlation(input[compared], shifted) > 0.9)
        let decoded = Array(output[compared])
        #expect(goertzel(decoded, frequency: 440, sampleRate: rate) > 0.8)
        #expect(abs(zeroCrossingFrequency(decoded, sampleRate: rate) - 440) < 10)
        #expect(abs(LevelMeter.rms(decoded) - LevelMeter.rms(Array(input[compared]))) < 0.05)
    }

    @Test func pointerAPIsMatchTheArrayAPIs() throws {
        let encoderA = try OpusEncoder()
        let encoderB = try OpusEncoder()
        let frame = tone(frequency: 300, sampleRate: 16000, seconds: 0.02)
        var packet = [UInt8](repeating: 0, count: OpusEncoder.maxPacketBytes)
        let length = try frame.withUnsafeBufferPointer { input in
            try packet.withUnsafeMutableBufferPointer { try encoderB.encode(input, into: $0) }
        }
        let reference = try encoderA.encode(frame)
        #expect(Array(packet.prefix(length)) == reference)

        let decoder = try OpusDecoder()
        var pcm = [Int16](repeating: 0, count: 320)
        let count = try reference.withUnsafeBufferPointer { input in
            try pcm.withUnsafeMutableBufferPointer { try decoder.decode(input, into: $0) }
        }
        #expect(count == 320)
        #expect(try decoder.concealLoss(samples: 320).count == 320)
        try decoder.reset()
        try encoderA.reset()
        #expect(try encoderA.encode(frame) == reference)
    }

    @Test func rejectsBadFramesFormatsAndPackets() throws {
        let encoder = try OpusEncoder()
        #expect(throws: CodecError.self) { try encoder.encode([Int16](repeating: 0, count: 300)) }
        #expect(throws: CodecError.self) { try encoder.encode([]) }
        #expect(throws: CodecError.self) { try encoder.setBitrate(-5) }
        #expect(throws: CodecError.self) { try OpusEncoder(format: AudioFormat(sampleRate: 44100)) }
        #expect(throws: CodecError.self) { try OpusDecoder(format: AudioFormat(sampleRate: 16000, channels: 3)) }

        let decoder = try OpusDecoder()
        // TOC code 3 with a frame count of 0 is malformed.
        let error = #expect(throws: CodecError.self) { try decoder.decode([0x03, 0x00]) }
        #expect(error == .opus(operation: "decode", message: "corrupted stream"))
        #expect(throws: CodecError.self) { try decoder.decode([]) }
    }
}
