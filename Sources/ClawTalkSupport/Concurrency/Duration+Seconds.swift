extension Duration {
    /// The duration in seconds, as a `Double` (for arithmetic on audio time and log fields).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, a negative one as 0 (for monotonic-clock arithmetic).
    public var wholeNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}
