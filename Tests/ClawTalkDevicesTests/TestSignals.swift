import Foundation

/// Deterministic test signals and measurements, generated in code.
enum TestSignals {
    /// A small deterministic PRNG (xorshift64*), so every run sees the same "speech".
    struct Noise {
        private var state: UInt64
        init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
        /// Uniform in -1...1.
        mutating func next() -> Double {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            let value = state &* 2_685_821_657_736_338_717
            return Double(value >> 11) / Double(1 << 52) - 1
        }
    }

    /// Speech-like audio: noise through a 300–3400 Hz band-pass, in syllable-sized bursts
    /// (120–280 ms on, 40–120 ms off) with smooth edges, peaking near -12 dBFS.
    static func speechLike(seconds: Double, sampleRate: Int, seed: UInt64 = 42) -> [Int16] {
        var noise = Noise(seed: seed)
        let count = Int(seconds * Double(sampleRate))
        // Band-pass as high-pass (300 Hz) then low-pass (3400 Hz), one-pole each, twice.
        let hp = exp(-2 * Double.pi * 300 / Double(sampleRate))
        let lp = exp(-2 * Double.pi * 3400 / Double(sampleRate))
        var hpState = (x: 0.0, y: 0.0, x2: 0.0, y2: 0.0)
        var lpState = (0.0, 0.0)
        var envelope = [Double](repeating: 0, count: count)
        var index = 0
        while index < count {
            let on = Int((0.12 + 0.16 * abs(noise.next())) * Double(sampleRate))
            let off = Int((0.04 + 0.08 * abs(noise.next())) * Double(sampleRate))
            let gain = 0.5 + 0.5 * abs(noise.next())
            let ramp = max(1, sampleRate / 100)
            for i in 0..<on where index + i < count {
                let edge = min(1, Double(min(i, on - 1 - i)) / Double(ramp))
                envelope[index + i] = gain * edge
            }
            index += on + off
        }
        var out = [Int16](repeating: 0, count: count)
        for i in 0..<count {
            let x = noise.next()
            let y1 = hp * (hpState.y + x - hpState.x)
            hpState.x = x
            hpState.y = y1
            let y2 = hp * (hpState.y2 + y1 - hpState.x2)
            hpState.x2 = y1
            hpState.y2 = y2
            lpState.0 = (1 - lp) * y2 + lp * lpState.0
            lpState.1 = (1 - lp) * lpState.0 + lp * lpState.1
            out[i] = Int16(clamping: Int((lpState.1 * envelope[i] * 3.0 * 8192).rounded()))
        }
        return out
    }

    /// A sine tone at `amplitude` (0...1 of full scale).
    static func tone(frequency: Double, seconds: Double, sampleRate: Int, amplitude: Double = 0.5) -> [Int16] {
        let count = Int(seconds * Double(sampleRate))
        return (0..<count).map { i in
            Int16((sin(2 * .pi * frequency * Double(i) / Double(sampleRate)) * amplitude * 32767).rounded())
        }
    }

    /// Sum of squares.
    static func energy(_ samples: some Collection<Int16>) -> Double {
        samples.reduce(0) { $0 + Double($1) * Double($1) }
    }

    /// Goertzel power of `frequency` in `samples`, normalised by the length.
    static func goertzel(_ samples: ArraySlice<Int16>, frequency: Double, sampleRate: Int) -> Double {
        let coefficient = 2 * cos(2 * .pi * frequency / Double(sampleRate))
        var s1 = 0.0
        var s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return power / Double(max(samples.count, 1))
    }
}
