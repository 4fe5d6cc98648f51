/// One 20 ms frame of captured 16 kHz mono audio, as the capture engine's streams deliver it.
public struct CapturedFrame: Sendable, Equatable {
    /// The samples (320 for 20 ms at 16 kHz mono).
    public var samples: [Int16]
    /// ``MonotonicTime`` nanoseconds when the read of this frame returned (its last sample reached
    /// the server about one device latency earlier).
    public var timestampNanoseconds: UInt64
    /// Frame number since the engine started, counting every frame read from a device: a gap
    /// means frames were dropped (ring overrun); a reopen after an unplug leaves no gap but a
    /// jump in ``timestampNanoseconds``.
    public var sequence: UInt64

    /// Creates a frame.
    public init(samples: [Int16], timestampNanoseconds: UInt64, sequence: UInt64) {
        self.samples = samples
        self.timestampNanoseconds = timestampNanoseconds
        self.sequence = sequence
    }
}
