public import Foundation

/// A temporary directory removed when the value is released.
public final class TempDirectory {
    /// The directory.
    public let url: URL

    /// Creates `clawtalk-<prefix>-<uuid>` in the system temporary directory.
    public init(prefix: String = "test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("clawtalk-\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Deterministic random numbers (SplitMix64) so failures reproduce.
public struct SeededGenerator: RandomNumberGenerator {
    /// The generator state.
    public var state: UInt64

    /// Starts from `state`.
    public init(state: UInt64) { self.state = state }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `count` deterministic random bytes.
public func randomBytes(_ count: Int, seed: UInt64) -> Data {
    var generator = SeededGenerator(state: seed)
    return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
}

/// A sine tone as s16 at `amplitude` of full scale.
public func tone(frequency: Double, sampleRate: Int, seconds: Double, amplitude: Double = 0.5) -> [Int16] {
    let count = Int(Double(sampleRate) * seconds)
    return (0..<count).map { Int16(amplitude * 32767 * sin(2 * .pi * frequency * Double($0) / Double(sampleRate))) }
}

/// Little-endian bytes of integers, for hand-built files.
public func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}
