import ClawTalkAudio
import Synchronization

/// Hands the far-end reference (10 ms frames of what the playback thread wrote) to the front
/// end's processing, with the monotonic time of each write.
///
/// The producer is ``PlaybackController``'s render tap on the playback thread: ``push(_:at:)``
/// copies into a preallocated lock-free ``FrameRing`` and never blocks, locks or allocates.
/// The controller normally has one playback thread; when its watchdog replaces a stuck one, the
/// old thread may still deliver one frame after its write returns, so a push that finds another
/// push in progress drops its frame (counted) instead of breaking the ring's single-producer rule.
/// When the ring is full (nobody is processing) new frames are dropped and counted.
///
/// The consumer (the front end's processor, under its lock) takes frames in order with one frame
/// of look-ahead, so it can stop at the first frame written after a given instant.
final class FarEndBuffer: Sendable {
    /// Samples per frame (10 ms at 16 kHz).
    let frameSamples: Int
    private let ring: FrameRing
    private let producing = Atomic<Bool>(false)
    private let collisions = Atomic<Int>(0)
    private let sequence = Atomic<UInt64>(0)

    /// A buffer of `capacity` frames of `frameSamples` samples.
    init(capacity: Int, frameSamples: Int) {
        self.frameSamples = frameSamples
        ring = FrameRing(capacity: capacity, frameSize: frameSamples)
    }

    /// Producer: stores one frame written at `timestampNanoseconds`. A frame of another length is
    /// ignored (counted as dropped).
    func push(_ frame: UnsafeBufferPointer<Int16>, at timestampNanoseconds: UInt64) {
        guard frame.count == frameSamples else {
            collisions.wrappingAdd(1, ordering: .relaxed)
            return
        }
        guard !producing.exchange(true, ordering: .acquiring) else {
            collisions.wrappingAdd(1, ordering: .relaxed)
            return
        }
        let number = sequence.wrappingAdd(1, ordering: .relaxed).oldValue
        ring.write(frame, stamp: FrameRing.Stamp(timestampNanoseconds: timestampNanoseconds, sequence: number))
        producing.store(false, ordering: .releasing)
    }

    /// Frames dropped: ring full, a concurrent push, or a wrong length.
    var dropped: Int { ring.overruns + collisions.load(ordering: .relaxed) }

    /// Frames accepted so far.
    var accepted: Int { ring.written }

    /// Consumer-side state: one frame of look-ahead. Owned by the processor (under its lock).
    final class Reader {
        /// The peeked frame's samples (valid while ``pending`` is set).
        let frame: UnsafeMutableBufferPointer<Int16>
        /// The peeked frame's stamp; nil when nothing is peeked.
        var pending: FrameRing.Stamp?

        init(frameSamples: Int) {
            frame = .allocate(capacity: frameSamples)
            frame.initialize(repeating: 0)
        }

        deinit { frame.deallocate() }
    }

    /// Consumer: the timestamp of the oldest frame not yet taken (loaded into `reader.frame`),
    /// or nil when none is waiting.
    func peek(_ reader: Reader) -> UInt64? {
        if reader.pending == nil { reader.pending = ring.read(into: reader.frame) }
        return reader.pending?.timestampNanoseconds
    }

    /// Consumer: marks the peeked frame as taken.
    func take(_ reader: Reader) {
        reader.pending = nil
    }
}

/// The levels of the far-end frames fed to the canceller over the last 1.28 s, with their write
/// times, so that each capture frame can say how loud the playback was whose echo it may hold
/// (``FrontEndFrame/farEndRMS``). A fixed ring: recording and reading never allocate.
struct FarEndLevels {
    /// Frames kept (1.28 s of 10 ms frames: more than the echo delay plus its tail).
    static let capacity = 128
    private var levels = [Double](repeating: 0, count: capacity)
    private var bands = [BandLevels](repeating: BandLevels(), count: capacity)
    private var stamps = [UInt64](repeating: 0, count: capacity)
    private var next = 0
    private var count = 0

    /// Records a far-end frame of RMS `level` and band levels `bands` written at `stamp`.
    mutating func record(_ level: Double, bands frameBands: BandLevels = BandLevels(), at stamp: UInt64) {
        levels[next] = level
        bands[next] = frameBands
        stamps[next] = stamp
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// The highest level in each band of the frames written at or after `start` (silent: none).
    func loudestBands(since start: UInt64) -> BandLevels {
        var loudest = BandLevels()
        var index = next
        for _ in 0..<count {
            index = (index + Self.capacity - 1) % Self.capacity
            guard stamps[index] >= start else { break }
            loudest = loudest.loudest(bands[index])
        }
        return loudest
    }

    /// The highest level of the frames written at or after `start` (0: none).
    func loudest(since start: UInt64) -> Double {
        var loudest = 0.0
        var index = next
        for _ in 0..<count {
            index = (index + Self.capacity - 1) % Self.capacity
            guard stamps[index] >= start else { break }
            loudest = max(loudest, levels[index])
        }
        return loudest
    }
}
