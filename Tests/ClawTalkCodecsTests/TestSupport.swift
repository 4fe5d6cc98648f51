import Foundation

/// A temporary directory removed when the value is released.
final class TempDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("clawtalk-codecs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

struct ToolError: Error, CustomStringConvertible {
    var description: String
}

/// Runs a command-line tool found on PATH and fails if it exits non-zero.
///
/// stderr goes to a file, not a Pipe: reading a Pipe while the child exits can hit EINTR,
/// which Foundation's FileHandle turns into a trap.
func runTool(_ tool: String, _ arguments: [String]) throws {
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("clawtalk-tool-\(UUID().uuidString).log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: log) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    process.standardError = try FileHandle(forWritingTo: log)
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        let stderr = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw ToolError(
            description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(stderr)")
    }
}

/// Deterministic bytes (SplitMix64) so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func randomBytes(_ count: Int, seed: UInt64) -> Data {
    var generator = SeededGenerator(state: seed)
    return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
}

/// A sine tone as s16 at `amplitude` of full scale.
func tone(frequency: Double, sampleRate: Int, seconds: Double, amplitude: Double = 0.5) -> [Int16] {
    let count = Int(Double(sampleRate) * seconds)
    return (0..<count).map { Int16(amplitude * 32767 * sin(2 * .pi * frequency * Double($0) / Double(sampleRate))) }
}

/// Little-endian bytes of integers, for hand-built files.
func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

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
