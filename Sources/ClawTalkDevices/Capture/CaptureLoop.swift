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
///   by ``RetryBackoff`` (0.5 s doubling to 5 s), sleeping in short slices so stop stays prompt.
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
            shared.threadFinished.signal()
        }
        do {
            try open(chosen: hasChosenSource)
            shared.reportFirstOpen(.success(()))
        } catch {
            shared.reportFirstOpen(.failure(error))
            return
        }
        let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: ring.frameSize)
        buffer.initialize(repeating: 0)
        defer { buffer.deallocate() }
        while !shared.isStopping {
            if hasChosenSource { followChosenSource() }
            guard let stream else {
                reopen()
                continue
            }
            do {
                try stream.read(into: buffer)
            } catch {
                readFailed(error)
                continue
            }
            // A frame that finished after stop was requested is not delivered.
            guard !shared.isStopping else { break }
            deliver(UnsafeBufferPointer(buffer))
        }
    }

    // MARK: - Per-frame path (no allocation, no locks)

    private mutating func deliver(_ frame: UnsafeBufferPointer<Int16>) {
        let now = MonotonicTime.nanoseconds()
        var sum = 0.0
        var sumOfSquares = 0.0
        var peak = 0
        for sample in frame {
            let value = Int(sample)
            sum += Double(value)
            sumOfSquares += Double(value * value)
            peak = max(peak, abs(value))
        }
        let count = Double(max(frame.count, 1))
        let rms = (sumOfSquares / count).squareRoot() / 32768
        // The level without DC, as the front end judges quiet (a DC offset is not sound).
        let mean = sum / count
        let acRMS = max(sumOfSquares / count - mean * mean, 0).squareRoot() / 32768
        shared.rmsBits.store(rms.bitPattern, ordering: .relaxed)
        shared.peakBits.store((Double(peak) / 32768).bitPattern, ordering: .relaxed)
        ring.write(frame, stamp: FrameRing.Stamp(timestampNanoseconds: now, sequence: sequence))
        // An idle consumer takes quiet frames in batches; anything louder wakes it at once.
        let idleLevel = Double(bitPattern: shared.idleWakeLevelBits.load(ordering: .relaxed))
        if idleLevel == 0 || acRMS >= idleLevel { shared.framesReady.signal() }
        sequence &+= 1
        shared.frames.wrappingAdd(1, ordering: .relaxed)
        if framesSinceOpen == 0 { backoff.reset() }
        framesSinceOpen &+= 1
    }

    // MARK: - Device events

    /// Opens the chosen source (or the default) and, on success, replaces the current stream.
    private mutating func open(chosen: Bool) throws {
        let name = chosen ? shared.chosenName.withLock { $0 } : nil
        let opened = try backend.openStream(
            source: name, format: configuration.format, frameMilliseconds: configuration.frameMilliseconds)
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
        "source '\(shared.chosenName.withLock { $0 } ?? configuration.source ?? "")'"
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
