/// Cuts a stream of arbitrary-length sample blocks into fixed-size frames (for example 320
/// samples = 20 ms at 16 kHz mono for Opus, 160 = 10 ms for echo cancellation).
///
/// Pure value type. Its only storage is one pending buffer of `frameSize` samples, reserved at
/// init; ``append(_:emit:)`` hands out each frame as a buffer pointer (straight from the input
/// when the pending buffer is empty) and never allocates, so it is fit for an audio thread.
/// The array-returning ``append(_:)`` allocates only the frames it returns.
public struct FrameChunker: Sendable {
    /// Samples per emitted frame (all channels, interleaved).
    public let frameSize: Int
    private var pending: [Int16]

    /// Creates a chunker for frames of `frameSize` samples (must be positive).
    public init(frameSize: Int) {
        precondition(frameSize > 0, "frame size must be positive")
        self.frameSize = frameSize
        pending = []
        pending.reserveCapacity(frameSize)
    }

    /// Creates a chunker for frames of `milliseconds` in `format`.
    public init(format: AudioFormat, milliseconds: Int) {
        self.init(frameSize: format.sampleCount(milliseconds: milliseconds))
    }

    /// Samples held back because they do not yet fill a frame (always < ``frameSize``).
    public var pendingCount: Int { pending.count }

    /// Adds `samples` and calls `emit` once per completed frame, in order, without allocating.
    ///
    /// The buffer passed to `emit` is valid only during the call.
    public mutating func append<E: Error>(
        _ samples: UnsafeBufferPointer<Int16>,
        emit: (UnsafeBufferPointer<Int16>) throws(E) -> Void
    ) throws(E) {
        var index = 0
        let count = samples.count
        if !pending.isEmpty {
            let take = min(frameSize - pending.count, count)
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: samples[0..<take]))
            index = take
            guard pending.count == frameSize else { return }
            // The pending array is used only for reading inside `emit`; copy-on-write cannot trigger.
            try pending.withUnsafeBufferPointer { (frame) throws(E) in try emit(frame) }
            pending.removeAll(keepingCapacity: true)
        }
        while count - index >= frameSize {
            try emit(UnsafeBufferPointer(rebasing: samples[index..<(index + frameSize)]))
            index += frameSize
        }
        if index < count {
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: samples[index..<count]))
        }
    }

    /// Adds `samples` and returns every frame they complete (possibly none).
    public mutating func append(_ samples: [Int16]) -> [[Int16]] {
        var frames: [[Int16]] = []
        samples.withUnsafeBufferPointer { input in
            append(input) { frames.append(Array($0)) }
        }
        return frames
    }

    /// Returns the held-back remainder and empties the chunker; `nil` when nothing is pending.
    ///
    /// - Parameter padWithZeros: extend the remainder with silence to a whole ``frameSize``
    ///   frame; otherwise it is returned short.
    public mutating func flush(padWithZeros: Bool) -> [Int16]? {
        guard !pending.isEmpty else { return nil }
        var rest = pending
        if padWithZeros {
            rest.append(contentsOf: repeatElement(0, count: frameSize - rest.count))
        }
        pending.removeAll(keepingCapacity: true)
        return rest
    }

    /// Drops any pending samples.
    public mutating func reset() {
        pending.removeAll(keepingCapacity: true)
    }
}
