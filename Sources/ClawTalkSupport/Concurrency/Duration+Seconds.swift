extension Duration {
    /// The duration in seconds, as a `Double` (for arithmetic on audio time and log fields).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
