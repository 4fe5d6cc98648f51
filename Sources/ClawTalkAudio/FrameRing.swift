import Synchronization

// @unchecked Sendable: the raw storage is shared by one producer and one consumer; each slot is
// written only by the producer before it publishes `head` (release) and read only by the
// consumer after it observes `head` (acquire), and handed back through `tail` the same way.
/// A single-producer single-consumer ring of fixed-size Int16 frames, for handing audio from a
/// real-time thread to a consumer without locks or allocation.
///
/// - Storage (samples and one ``Stamp`` per slot) is allocated once in `init` and freed in `deinit`.
/// - ``write(_:stamp:)`` and ``read(into:)`` never allocate, lock, block or log, so the producer may
///   be a real-time audio thread.
/// - When the ring is full the producer's **incoming** frame is dropped and counted in
///   ``overruns``. Overwriting the oldest frame instead would make the producer move the
///   consumer's index, which a lock-free SPSC ring cannot do safely; a lagging consumer therefore
///   keeps the older audio and loses the newest, and sees the loss as a gap in
///   ``Stamp/sequence`` when the producer numbers its frames.
///
/// Discipline: exactly one thread (or one task at a time) calls ``write(_:stamp:)``, and exactly one
/// calls ``read(into:)``; the counters may be read from anywhere.
public final class FrameRing: @unchecked Sendable {
    /// Per-frame metadata stored beside the samples.
    public struct Stamp: Sendable, Hashable {
        /// Capture time in monotonic nanoseconds (the producer's clock; opaque to the ring).
        public var timestampNanoseconds: UInt64
        /// The producer's frame number (lets the consumer see dropped frames as gaps).
        public var sequence: UInt64

        /// Creates a stamp.
        public init(timestampNanoseconds: UInt64, sequence: UInt64) {
            self.timestampNanoseconds = timestampNanoseconds
            self.sequence = sequence
        }
    }

    /// Number of frames the ring holds.
    public let capacity: Int
    /// Samples per frame.
    public let frameSize: Int

    private let samples: UnsafeMutablePointer<Int16>
    private let stamps: UnsafeMutablePointer<Stamp>
    /// Frames ever written (the next slot to fill is `head % capacity`); stored by the producer.
    private let head = Atomic<Int>(0)
    /// Frames ever read (the next slot to read is `tail % capacity`); stored by the consumer.
    private let tail = Atomic<Int>(0)
    private let overrunCount = Atomic<Int>(0)

    /// Creates a ring of `capacity` frames of `frameSize` samples each (both positive).
    public init(capacity: Int, frameSize: Int) {
        precondition(capacity > 0 && frameSize > 0, "FrameRing capacity and frame size must be positive")
        self.capacity = capacity
        self.frameSize = frameSize
        samples = .allocate(capacity: capacity * frameSize)
        samples.initialize(repeating: 0, count: capacity * frameSize)
        stamps = .allocate(capacity: capacity)
        stamps.initialize(repeating: Stamp(timestampNanoseconds: 0, sequence: 0), count: capacity)
    }

    deinit {
        samples.deinitialize(count: capacity * frameSize)
        samples.deallocate()
        stamps.deinitialize(count: capacity)
        stamps.deallocate()
    }

    /// Producer: copies one frame (exactly ``frameSize`` samples) in; returns false and counts an
    /// overrun when the ring is full (the frame is dropped).
    @discardableResult
    public func write(_ frame: UnsafeBufferPointer<Int16>, stamp: Stamp) -> Bool {
        precondition(frame.count == frameSize, "FrameRing.write needs exactly frameSize samples")
        let position = head.load(ordering: .relaxed)
        guard position - tail.load(ordering: .acquiring) < capacity else {
            overrunCount.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        let slot = position % capacity
        if let source = frame.baseAddress {
            (samples + slot * frameSize).update(from: source, count: frameSize)
        }
        stamps[slot] = stamp
        head.store(position + 1, ordering: .releasing)
        return true
    }

    /// Consumer: copies the oldest frame into the first ``frameSize`` samples of `buffer` and
    /// returns its stamp, or returns nil (leaving `buffer` alone) when the ring is empty.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Stamp? {
        precondition(buffer.count >= frameSize, "FrameRing.read needs room for frameSize samples")
        let position = tail.load(ordering: .relaxed)
        guard position < head.load(ordering: .acquiring) else { return nil }
        let slot = position % capacity
        if let target = buffer.baseAddress {
            target.update(from: samples + slot * frameSize, count: frameSize)
        }
        let stamp = stamps[slot]
        tail.store(position + 1, ordering: .releasing)
        return stamp
    }

    /// Consumer convenience: the oldest frame as a new array with its stamp, or nil when empty.
    public func read() -> (samples: [Int16], stamp: Stamp)? {
        var stamp: Stamp?
        let frame = [Int16](unsafeUninitializedCapacity: frameSize) { buffer, count in
            stamp = read(into: buffer)
            count = stamp == nil ? 0 : frameSize
        }
        guard let stamp else { return nil }
        return (frame, stamp)
    }

    /// Frames waiting to be read (a snapshot, 0...capacity; exact only on the consumer's thread).
    public var count: Int {
        let consumed = tail.load(ordering: .acquiring)
        let produced = head.load(ordering: .acquiring)
        return min(max(produced - consumed, 0), capacity)
    }

    /// True when no frame is waiting.
    public var isEmpty: Bool { count == 0 }

    /// Frames accepted by ``write(_:stamp:)`` so far.
    public var written: Int { head.load(ordering: .relaxed) }

    /// Frames dropped by ``write(_:stamp:)`` because the ring was full.
    public var overruns: Int { overrunCount.load(ordering: .relaxed) }
}
