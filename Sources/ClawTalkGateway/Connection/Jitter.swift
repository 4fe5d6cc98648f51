/// Source of the random fraction added to reconnect delays, as a value: seeded (SplitMix64)
/// so the ``Backoff`` and the ``ConnectionStateMachine`` stay pure and tests are exact.
public struct Jitter: Sendable, Hashable {
    private var state: UInt64
    private let fixedFraction: Double?

    private init(state: UInt64, fixedFraction: Double?) {
        self.state = state
        self.fixedFraction = fixedFraction
    }

    /// A deterministic sequence from `seed`.
    public static func seeded(_ seed: UInt64) -> Jitter {
        Jitter(state: seed, fixedFraction: nil)
    }

    /// Always `fraction` (clamped to 0…1): for tables that pin the jitter.
    public static func fixed(_ fraction: Double) -> Jitter {
        Jitter(state: 0, fixedFraction: min(max(fraction, 0), 1))
    }

    /// No jitter at all.
    public static let none = Jitter.fixed(0)

    /// A sequence seeded from the system generator (production).
    public static func random() -> Jitter {
        var generator = SystemRandomNumberGenerator()
        return .seeded(generator.next())
    }

    /// The next fraction in 0…1.
    public mutating func nextFraction() -> Double {
        if let fixedFraction { return fixedFraction }
        // SplitMix64: tiny, well-distributed, and a plain value.
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}
