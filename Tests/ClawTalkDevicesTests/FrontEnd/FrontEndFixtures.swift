import ClawTalkAudio
import ClawTalkDevices
import Foundation
import Testing

/// Signals and helpers for the front-end tests: stationary noises, espeak-ng speech, mixing
/// and offline driving of an ``AudioFrontEnd``.
enum FrontEndFixtures {
    static let rate = 16000
    static let frame = 320

    /// Gaussian white noise (Box–Muller over the deterministic test PRNG), unit variance.
    static func white(count: Int, seed: UInt64) -> [Double] {
        var noise = TestSignals.Noise(seed: seed)
        var out = [Double](repeating: 0, count: count)
        var index = 0
        while index < count {
            let u1 = max((noise.next() + 1) / 2, 1e-12)
            let u2 = (noise.next() + 1) / 2
            let radius = (-2 * log(u1)).squareRoot()
            out[index] = radius * cos(2 * .pi * u2)
            if index + 1 < count { out[index + 1] = radius * sin(2 * .pi * u2) }
            index += 2
        }
        return out
    }

    /// A stationary noise kind for the VAD table.
    enum Noise: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case white, pink, brown, hum

        var testDescription: String { rawValue }

        /// `count` samples of this noise with unit RMS.
        func samples(count: Int, seed: UInt64 = 99) -> [Double] {
            let source = FrontEndFixtures.white(count: count, seed: seed)
            var out: [Double]
            switch self {
            case .white:
                out = source
            case .pink:
                // Paul Kellet's pink-noise filter bank (−3 dB/octave within ±0.05 dB above 9 Hz).
                var b = [Double](repeating: 0, count: 7)
                out = source.map { x in
                    b[0] = 0.99886 * b[0] + x * 0.0555179
                    b[1] = 0.99332 * b[1] + x * 0.0750759
                    b[2] = 0.96900 * b[2] + x * 0.1538520
                    b[3] = 0.86650 * b[3] + x * 0.3104856
                    b[4] = 0.55000 * b[4] + x * 0.5329522
                    b[5] = -0.7616 * b[5] - x * 0.0168980
                    let y = b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + x * 0.5362
                    b[6] = x * 0.115926
                    return y
                }
            case .brown:
                // Leaky integration: −6 dB/octave above ~13 Hz.
                var y = 0.0
                out = source.map { x in
                    y = 0.995 * y + x
                    return y
                }
            case .hum:
                // Mains hum: 50 Hz with odd harmonics, as a transformer or ground loop makes it.
                out = (0..<count).map { i in
                    let t = Double(i) / Double(FrontEndFixtures.rate)
                    return sin(2 * .pi * 50 * t) + 0.3 * sin(2 * .pi * 150 * t + 0.4) + 0.1
                        * sin(2 * .pi * 250 * t + 1.1)
                }
            }
            let rms = (out.reduce(0) { $0 + $1 * $1 } / Double(max(count, 1))).squareRoot()
            return out.map { $0 / max(rms, 1e-12) }
        }
    }

    /// Scales `signal` to an RMS of `dBFS` and converts to Int16.
    static func pcm(_ signal: [Double], dBFS: Double) -> [Int16] {
        let rms = (signal.reduce(0) { $0 + $1 * $1 } / Double(max(signal.count, 1))).squareRoot()
        let gain = pow(10, dBFS / 20) * 32768 / max(rms, 1e-12)
        return signal.map { Int16(clamping: Int(($0 * gain).rounded())) }
    }

    /// `text` spoken by espeak-ng, resampled by sox to 16 kHz mono s16.
    static func speech(_ text: String, voice: String = "en-us", speed: Int = 160) throws -> [Int16] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ct-fe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let raw = directory.appendingPathComponent("espeak.wav")
        let converted = directory.appendingPathComponent("speech.wav")
        try run("/usr/bin/espeak-ng", ["-v", voice, "-s", "\(speed)", "-w", raw.path, text])
        try run("/usr/bin/sox", [raw.path, "-r", "16000", "-c", "1", "-b", "16", converted.path])
        let pcm = try WAVFile.decode(Data(contentsOf: converted))
        #expect(pcm.format == AudioFormat.speech)
        return pcm.samples
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RigError(
                description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
    }

    /// RMS per 20 ms frame, full scale 1.0.
    static func frameRMS(_ samples: [Int16]) -> [Double] {
        stride(from: 0, to: samples.count - frame + 1, by: frame).map {
            LevelMeter.rms(Array(samples[$0..<$0 + frame]))
        }
    }

    /// Active-speech frames of a clean clip: within 35 dB of its loudest frame and above −60 dBFS.
    static func activeFrames(_ speech: [Int16]) -> [Bool] {
        let levels = frameRMS(speech)
        let loudest = levels.max() ?? 0
        return levels.map { $0 >= max(loudest * pow(10, -35.0 / 20), 1e-3) }
    }

    /// RMS over the active frames of a clean clip (its active speech level).
    static func activeLevel(_ speech: [Int16]) -> Double {
        let active = activeFrames(speech)
        var sum = 0.0
        var count = 0
        for (index, isActive) in active.enumerated() where isActive {
            for sample in speech[index * frame..<(index + 1) * frame] { sum += Double(sample) * Double(sample) }
            count += frame
        }
        return (sum / Double(max(count, 1))).squareRoot() / 32768
    }

    /// Runs `near` through `frontEnd` in 20 ms capture frames stamped from `origin` (the stamp of
    /// a frame is the time of its last sample plus `captureLatency`); before each frame, `farEnd`
    /// is asked for the far-end frames written by then.
    static func drive(
        _ frontEnd: AudioFrontEnd, near: [Int16], origin: UInt64 = 1_000_000_000,
        captureLatency: UInt64 = 0, farEnd: ((UInt64) -> Void)? = nil
    ) throws -> [FrontEndFrame] {
        var out: [FrontEndFrame] = []
        var sequence: UInt64 = 0
        for start in stride(from: 0, to: near.count - frame + 1, by: frame) {
            let stamp = origin + UInt64(start + frame) * 1_000_000_000 / UInt64(rate) + captureLatency
            farEnd?(stamp)
            out.append(
                try frontEnd.process(
                    CapturedFrame(
                        samples: Array(near[start..<start + frame]), timestampNanoseconds: stamp, sequence: sequence)))
            sequence += 1
        }
        return out
    }
}
