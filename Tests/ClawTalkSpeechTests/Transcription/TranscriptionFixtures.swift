import ClawTalkAudio
import ClawTalkSpeech
import Foundation
import Glibc

/// Audio and sockets for the transcription tests.
enum TranscriptionFixtures {
    /// A 440 Hz tone at 16 kHz mono lasting `seconds`.
    static func tone(seconds: Double) -> PCMBuffer {
        let count = Int(seconds * 16000)
        let samples = (0..<count).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 16000)) }
        return PCMBuffer(format: .speech, samples: samples)
    }

    /// Pink noise (Paul Kellet's filter over seeded white noise) at 16 kHz mono, RMS ≈ −20 dBFS.
    static func pinkNoise(seconds: Double, seed: UInt64 = 0x5EED) -> PCMBuffer {
        var state = seed
        func white() -> Double {
            // xorshift64*: reproducible, uniform in [-1, 1).
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            let value = state &* 0x2545_F491_4F6C_DD1D
            return Double(value >> 11) / Double(1 << 52) - 1
        }
        var b = [Double](repeating: 0, count: 7)
        var values = [Double]()
        let count = Int(seconds * 16000)
        values.reserveCapacity(count)
        for _ in 0..<count {
            let w = white()
            b[0] = 0.99886 * b[0] + w * 0.0555179
            b[1] = 0.99332 * b[1] + w * 0.0750759
            b[2] = 0.96900 * b[2] + w * 0.1538520
            b[3] = 0.86650 * b[3] + w * 0.3104856
            b[4] = 0.55000 * b[4] + w * 0.5329522
            b[5] = -0.7616 * b[5] - w * 0.0168980
            values.append(b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + w * 0.5362)
            b[6] = w * 0.115926
        }
        let rms = (values.reduce(0) { $0 + $1 * $1 } / Double(count)).squareRoot()
        let gain = 0.1 * 32767 / rms
        return PCMBuffer(
            format: .speech, samples: values.map { Int16(max(-32767, min(32767, ($0 * gain).rounded()))) })
    }
}
