import ClawTalkTesting
import Foundation

/// Relative power of `frequency` in `samples` (Goertzel), normalised by the block's energy:
/// close to 1 for a pure tone at that frequency, near 0 far from it.
func goertzel(_ samples: [Int16], frequency: Double, sampleRate: Int) -> Double {
    let omega = 2 * .pi * frequency / Double(sampleRate)
    let coefficient = 2 * cos(omega)
    var s1 = 0.0
    var s2 = 0.0
    var energy = 0.0
    for sample in samples {
        let x = Double(sample)
        energy += x * x
        let s0 = x + coefficient * s1 - s2
        s2 = s1
        s1 = s0
    }
    let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
    guard energy > 0 else { return 0 }
    return 2 * power / (Double(samples.count) * energy)
}

/// The mono channel 0 of interleaved samples.
func firstChannel(_ samples: [Int16], channels: Int) -> [Int16] {
    stride(from: 0, to: samples.count, by: channels).map { samples[$0] }
}

/// Estimated frequency from upward zero crossings.
func zeroCrossingFrequency(_ samples: [Int16], sampleRate: Int) -> Double {
    var crossings = 0
    for index in 1..<samples.count where samples[index - 1] < 0 && samples[index] >= 0 {
        crossings += 1
    }
    return Double(crossings) * Double(sampleRate) / Double(samples.count)
}

/// Normalised cross-correlation of two equally long blocks.
func correlation(_ a: ArraySlice<Int16>, _ b: ArraySlice<Int16>) -> Double {
    var ab = 0.0
    var aa = 0.0
    var bb = 0.0
    for (x, y) in zip(a, b) {
        ab += Double(x) * Double(y)
        aa += Double(x) * Double(x)
        bb += Double(y) * Double(y)
    }
    return ab / (aa * bb).squareRoot()
}

/// Makes `<name>.wav` with sox: a sine tone at `rate` and `channels`.
func soxTone(_ dir: TempDirectory, name: String, rate: Int, channels: Int = 1, seconds: Double, frequency: Int = 440)
    throws
    -> String
{
    let path = dir.path("\(name).wav")
    try runTool(
        "sox",
        [
            "-D", "-n", "-r", "\(rate)", "-c", "\(channels)", "-b", "16", path, "synth", "\(seconds)",
            "sine", "\(frequency)", "vol", "0.5",
        ])
    return path
}

func read(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}
