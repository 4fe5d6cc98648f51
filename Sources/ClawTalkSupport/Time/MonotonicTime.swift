#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The clock capture timestamps use: CLOCK_MONOTONIC in nanoseconds (not wall time; it does not
/// jump when the system clock is set, and it pauses during suspend).
public enum MonotonicTime {
    /// Nanoseconds on CLOCK_MONOTONIC now (a vDSO call: no allocation, safe on the audio thread).
    public static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}
