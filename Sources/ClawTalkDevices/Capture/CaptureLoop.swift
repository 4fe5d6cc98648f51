import ClawTalkAudio
import ClawTalkSupport
import Foundation
import Synchronization

/// The body of the capture thread: open, read 20 ms frames into the ring, recover from device
/// failures. Lives entirely on that thread (the stream it owns never leaves it).
///
/// The per-frame path (read, timestamp, level, ring write, counters) does not allocate, lock, log
/// or await. Device events (a failed read, a switch, a retry) do allocate: opening a pa_simple
/// stream does anyway, and they happen a few times per unplug, not per frame.
///
/// Device policy:
/// - A read failure closes the stream and the chosen source is opened again at once (a killed
///   stream, a server hiccup); if that fails, or the failed stream never delivered a frame, the
///   source is marked unavailable and the default source is opened
///   (``CaptureState/fallback(reason:)``).
/// - PulseAudio 14+ moves the streams of a removed source to the default source itself, so an
///   unplug usually shows no read error at all; the watcher's listing catches it (next point).
/// - While on the default, once the watcher lists the chosen source again, a stream on it is
///   opened **before** the default one is closed, so a failed return costs no audio.
/// - If the watcher stops listing the chosen source while its stream still reads (a server that
///   moves orphaned streams to another source), the engine moves to the default itself, so the
///   state never claims a source that is gone.
/// - If nothing opens, the state is ``CaptureState/unavailable(reason:)`` and attempts are spaced
///   by ``RetryBackoff`` (0.5 s doubling to 2 s), sleeping in short slices so stop stays prompt.
///   A stream that opens but fails before its first frame also waits out the backoff before the
///   next attempt, so a broken device cannot make the thread spin; the backoff starts over only
///   when a stream delivers a frame.
struct CaptureLoop {
    let backend: any CaptureBackend
    let ring: FrameRing
    let shared: CaptureShared
    let configuration: CaptureConfiguration
    /// True when the configuration names a source (so there is something to fall back from).
    let hasChosenSource: Bool

    private var stream: (any CaptureInputStream)?
    private var onChosen = false
    private var fallbackReason = ""
    private var backoff: RetryBackoff
    private var sequence: UInt64 = 0
    /// The last frame's stamp (stamps only grow).
    private var lastStamp: UInt64 = 0
    /// Frames the current stream has delivered (0 = it has not proven itself yet).
    private var framesSinceOpen = 0
    /// Set when a stream failed before delivering anything: wait before the next attempt.
    private var delayNextAttempt = false
    private var lastReadError = ""
    /// After a failed switch, no new attempt before this ``MonotonicTime`` (one check interval
    /// later), so a source that is listed but will not open is not retried on every frame.
    private var nextSwitchAttempt: UInt64 = 0

    init(
        backend: any CaptureBackend, ring: FrameRing, shared: CaptureShared, configuration: CaptureConfiguration
    ) {
        self.backend = backend
        self.ring = ring
        self.shared = shared
        self.configuration = configuration
        hasChosenSource = configuration.source != nil
        backoff = RetryBackoff(initial: configuration.retryInitialDelay, maximum: configuration.retryMaximumDelay)
    }

    /// Runs until stop is requested; reports the first open (success or error) to `start()`.
    mutating func run() {
        defer {
            closeStream()
            shared.captureThreadRunning.store(false, ordering: .sequentiallyConsistent)
            shared.threadFinished.signal()
        }
        do {
            try open(chosen: hasChosenSource)
            shared.reportFirstOpen(.success(()))
        } catch {
            shared.reportFirstOpen(.failure(error))
            return
        }
        let frameSize = ring.frameSize
        let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: frameSize * idleBlockFrames)
        buffer.initialize(repeating: 0)
        defer { buffer.deallocate() }
        while !shared.isStopping {
            if hasChosenSource { followChosenSource() }
            guard let stream else {
                reopen()
                continue
            }
            // An idle consumer takes a block of frames per read: one wake-up of this thread and
            // one of the drain thread per block instead of one per frame.
            let idle = shared.idleWakeLevelBits.load(ordering: .relaxed) != 0
            let frames = idle ? idleBlockFrames : 1
            do {
                try stream.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(frames * frameSize)]))
            } catch {
                if shared.isStopping { break }
                readFailed(error)
                continue
            }
            // A frame that finished after stop was requested is not delivered.
            guard !shared.isStopping else { break }
            // The block's last sample was captured `backlog` before now (audio the stream holds
            // beyond it: a late wake-up on a busy machine); each frame before it 20 ms earlier.
            // Stamps never go backwards, whatever the jitter of that estimate.
            let end = MonotonicTime.nanoseconds() &- min(stream.backlogNanoseconds, maximumBacklogCorrection)
            for index in 0..<frames {
                let frame = UnsafeBufferPointer(rebasing: buffer[(index * frameSize)..<((index + 1) * frameSize)])
                let stamp = max(end &- UInt64(frames - 1 - index) &* frameNanoseconds, lastStamp &+ 1)
                deliver(frame, capturedAt: stamp)
                lastStamp = stamp
            }
            shared.framesReady.signal()
        }
    }

    /// Frames read at once while the consumer is idle: one ``CaptureConfiguration/idleDrainInterval``
    /// (5 at the defaults), at least 1 and at most half the ring.
    private var idleBlockFrames: Int {
        let frames = Int(configuration.idleDrainInterval.wholeNanoseconds / max(frameNanoseconds, 1))
        return min(max(1, frames), max(1, ring.capacity / 2))
    }

    private var frameNanoseconds: UInt64 { UInt64(configuration.frameMilliseconds) * 1_000_000 }

    /// The most a backlog may move a stamp back: the ring's length (a stream that claims more is
    /// wrong, and a frame is never stamped before the audio that the ring still holds).
    private var maximumBacklogCorrection: UInt64 { UInt64(ring.capacity) &* frameNanoseconds }

    // MARK: - Per-frame path (no allocation, no locks)

    /// Writes one frame, which ended at `now`, to the ring; the caller signals the drain thread.
    private mutating func deliver(_ frame: UnsafeBufferPointer<Int16>, capturedAt now: UInt64) {
        var sumOfSquares = 0.0
        var peak = 0
        for sample in frame {
            let value = Int(sample)
            sumOfSquares += Double(value * value)
            peak = max(peak, abs(value))
        }
        let count = Double(max(frame.count, 1))
        let rms = (sumOfSquares / count).squareRoot() / 32768
        shared.rmsBits.store(rms.bitPattern, ordering: .relaxed)
        shared.peakBits.store((Double(peak) / 32768).bitPattern, ordering: .relaxed)
        ring.write(frame, stamp: FrameRing.Stamp(timestampNanoseconds: now, sequence: sequence))
        sequence &+= 1
        shared.frames.wrappingAdd(1, ordering: .relaxed)
        if framesSinceOpen == 0 { backoff.reset() }
        framesSinceOpen &+= 1
    }

    // MARK: - Device events

    /// Opens the chosen source (or the default) and, on success, replaces the current stream.
    private mutating func open(chosen: Bool) throws {
        let name = chosen ? shared.chosenName.locked { $0 } : nil
        let shared = shared
        let opened = try backend.openStream(
            source: name, format: configuration.format, frameMilliseconds: configuration.frameMilliseconds,
            shouldStop: { shared.isStopping })
        closeStream()
        stream = opened
        onChosen = chosen
        framesSinceOpen = 0
        guard !shared.isStopping else { return }
        if chosen || !hasChosenSource {
            shared.setStatus(.capturing(device: name), device: name)
        } else {
            shared.setStatus(.fallback(reason: fallbackReason), device: nil)
        }
    }

    private mutating func closeStream() {
        stream?.close()
        stream = nil
    }

    private mutating func readFailed(_ error: any Error) {
        shared.readErrors.wrappingAdd(1, ordering: .relaxed)
        let provenStream = framesSinceOpen > 0
        closeStream()
        delayNextAttempt = !provenStream
        lastReadError = "\(error)"
        if onChosen {
            fallbackReason = "\(chosenDescription) failed: \(error)"
            // A stream that worked is retried on the chosen source first; one that never did
            // sends the engine to the default until the watcher lists the source again.
            if !provenStream { shared.chosenAvailable.store(false, ordering: .relaxed) }
        }
    }

    /// After a failure: the chosen source if it is believed present, else the default; if
    /// nothing opens, report unavailable and wait out the backoff.
    private mutating func reopen() {
        if delayNextAttempt {
            delayNextAttempt = false
            shared.setStatus(
                .unavailable(reason: "stream failed before delivering audio: \(lastReadError)"), device: nil)
            sleep(backoff.next())
            guard !shared.isStopping else { return }
        }
        var failure: (any Error)?
        if hasChosenSource, shared.chosenAvailable.load(ordering: .relaxed) {
            do {
                try open(chosen: true)
                shared.reopens.wrappingAdd(1, ordering: .relaxed)
                return
            } catch {
                failure = error
                shared.openFailures.wrappingAdd(1, ordering: .relaxed)
                shared.chosenAvailable.store(false, ordering: .relaxed)
                fallbackReason = "cannot open \(chosenDescription): \(error)"
            }
        }
        do {
            try open(chosen: false)
            shared.reopens.wrappingAdd(1, ordering: .relaxed)
            return
        } catch {
            failure = error
            shared.openFailures.wrappingAdd(1, ordering: .relaxed)
        }
        shared.setStatus(.unavailable(reason: failure.map { "\($0)" } ?? "no source"), device: nil)
        sleep(backoff.next())
    }

    /// Follows the watcher's verdict: back to the chosen source when it is listed again, off it
    /// when it is no longer listed. One atomic load per frame when nothing changes.
    private mutating func followChosenSource() {
        let available = shared.chosenAvailable.load(ordering: .relaxed)
        guard stream != nil, available != onChosen else { return }
        let now = MonotonicTime.nanoseconds()
        guard now >= nextSwitchAttempt else { return }
        if available {
            // Open the chosen source before letting go of the default.
            do {
                try open(chosen: true)
                shared.reopens.wrappingAdd(1, ordering: .relaxed)
            } catch {
                shared.openFailures.wrappingAdd(1, ordering: .relaxed)
                shared.chosenAvailable.store(false, ordering: .relaxed)
                nextSwitchAttempt = now &+ configuration.deviceCheckInterval.wholeNanoseconds
            }
        } else {
            fallbackReason = "\(chosenDescription) is no longer listed"
            do {
                try open(chosen: false)
                shared.reopens.wrappingAdd(1, ordering: .relaxed)
            } catch {
                // Keep reading the current stream (a read failure takes the reopen path); try
                // again after one check interval rather than on every frame.
                shared.openFailures.wrappingAdd(1, ordering: .relaxed)
                nextSwitchAttempt = now &+ configuration.deviceCheckInterval.wholeNanoseconds
            }
        }
    }

    private var chosenDescription: String {
        "source '\(shared.chosenName.locked { $0 } ?? configuration.source ?? "")'"
    }

    /// Sleeps `duration` in slices of at most 20 ms, returning early when stop is requested.
    private func sleep(_ duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while !shared.isStopping {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return }
            let (seconds, attoseconds) = min(remaining, .milliseconds(20)).components
            Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        }
    }
}
