import ClawTalkAudio
import ClawTalkSupport

/// The synchronous core of ``AudioFrontEnd``: far-end alignment, the two APM stages, voice
/// activity, the energy gate and echo activity, one capture frame at a time.
///
/// Not Sendable: the front end keeps it behind its lock, so one caller at a time uses it.
/// Per frame it allocates only the two output arrays.
final class FrontEndProcessor {
    /// Far-end frames quieter than this RMS (full scale) do not count as echo activity (−60 dBFS).
    static let farEndActiveRMS = 1e-3
    /// With no far-end frame written for this long, the far end is idle and silence is fed.
    static let farEndIdleGap: UInt64 = 50_000_000
    /// Far-end frames older than this relative to the capture being processed are dropped
    /// (written while nobody processed; the canceller could not use them).
    static let farEndStaleLimit: UInt64 = 500_000_000

    let settings: FrontEndSettings
    /// Samples per 10 ms APM frame.
    let apmFrameSamples: Int
    private let echoStage: AudioProcessor
    private let cleanStage: AudioProcessor?
    private let farEnd: FarEndBuffer
    private let reader: FarEndBuffer.Reader
    private let silence: UnsafeMutableBufferPointer<Int16>
    private var detector: SpeechDetector
    private var gate = EnergyGate()
    /// Write time of the last far-end frame fed (any level).
    private var lastFarEnd: UInt64?
    /// Write time of the last far-end frame fed that was not silent.
    private var lastActiveFarEnd: UInt64?

    // Counters, read under the front end's lock.
    private(set) var framesProcessed = 0
    private(set) var farEndFramesFed = 0
    private(set) var silenceFramesFed = 0
    private(set) var staleFarEndFrames = 0
    private(set) var lastEchoDelayMilliseconds = 0
    /// Audio processed since the last speech, echo or far-end frame, in nanoseconds.
    private(set) var quietNanoseconds: UInt64 = 0

    /// Creates both stages; throws ``AudioDeviceError/processing(_:)`` for settings the library rejects.
    init(settings: FrontEndSettings, farEnd: FarEndBuffer) throws {
        self.settings = settings
        echoStage = try AudioProcessor(settings: settings.echoStage)
        cleanStage = settings.cleansSpeech ? try AudioProcessor(settings: settings.cleanStage) : nil
        apmFrameSamples = echoStage.frameSamples
        self.farEnd = farEnd
        reader = FarEndBuffer.Reader(frameSamples: farEnd.frameSamples)
        silence = .allocate(capacity: apmFrameSamples)
        silence.initialize(repeating: 0)
        detector = SpeechDetector(frameSamples: 2 * apmFrameSamples, sampleRate: settings.echoStage.sampleRate)
    }

    deinit {
        silence.deallocate()
    }

    /// The echo delay handed to the canceller in whole milliseconds (at least 0): the override,
    /// else output latency (measured, or the assumed one) plus capture latency minus headroom.
    func echoDelayMilliseconds(outputLatency: Duration?) -> Int {
        let estimate = (outputLatency ?? settings.assumedOutputLatency) + settings.captureLatency
        let delay = settings.echoDelayOverride ?? (estimate - settings.echoDelayHeadroom)
        return max(0, Int(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000))
    }

    /// Processes one capture frame (a whole number of 10 ms APM frames).
    func process(_ frame: CapturedFrame, outputLatency: Duration?) throws -> FrontEndFrame {
        let count = frame.samples.count
        guard count > 0, count % apmFrameSamples == 0 else {
            throw AudioDeviceError.processing(
                "capture frame has \(count) samples; a positive multiple of \(apmFrameSamples) (10 ms) is required")
        }
        let delay = echoDelayMilliseconds(outputLatency: outputLatency)
        lastEchoDelayMilliseconds = delay
        farEndRecentlyFed = false
        let parts = count / apmFrameSamples
        let partNanoseconds = UInt64(apmFrameSamples) * 1_000_000_000 / UInt64(settings.echoStage.sampleRate)
        var aec = frame.samples
        if canBypass(frame.samples) {
            // Idle: nothing to cancel; the DC blocker stands in for the echo stage's high-pass.
            bypassedFrames += 1
            aec.withUnsafeMutableBufferPointer { dcBlocker.process($0) }
            let clean = try cleaned(aec, parts: parts)
            return finish(frame, aec: aec, clean: clean, parts: parts, partNanoseconds: partNanoseconds, delay: delay)
        }
        dcBlocker.reset()
        try aec.withUnsafeMutableBufferPointer { buffer in
            for part in 0..<parts {
                // The capture time of this 10 ms part's last sample, on the capture clock.
                let behind = UInt64(parts - 1 - part) * partNanoseconds
                let end = frame.timestampNanoseconds > behind ? frame.timestampNanoseconds - behind : 0
                try feedFarEnd(upTo: end)
                let slice = UnsafeMutableBufferPointer(
                    rebasing: buffer[part * apmFrameSamples..<(part + 1) * apmFrameSamples])
                _ = try echoStage.processCapture(slice, delayMs: delay)
            }
        }
        let clean = try cleaned(aec, parts: parts)
        return finish(frame, aec: aec, clean: clean, parts: parts, partNanoseconds: partNanoseconds, delay: delay)
    }

    /// The clean stage's output for `aec` (the same samples when there is no clean stage).
    private func cleaned(_ aec: [Int16], parts: Int) throws -> [Int16] {
        var clean = aec
        guard let cleanStage else { return clean }
        try clean.withUnsafeMutableBufferPointer { buffer in
            for part in 0..<parts {
                let slice = UnsafeMutableBufferPointer(
                    rebasing: buffer[part * apmFrameSamples..<(part + 1) * apmFrameSamples])
                _ = try cleanStage.processCapture(slice, delayMs: 0)
            }
        }
        return clean
    }

    /// Voice activity, the energy gate, echo activity and the idle clock for one processed frame.
    private func finish(
        _ frame: CapturedFrame, aec: [Int16], clean: [Int16], parts: Int, partNanoseconds: UInt64, delay: Int
    ) -> FrontEndFrame {
        var aec = aec
        var clean = clean
        let count = aec.count
        if detector.frameSamples != count {
            detector = SpeechDetector(frameSamples: count, sampleRate: settings.echoStage.sampleRate)
        }
        let (gateDecision, speech) = aec.withUnsafeBufferPointer { samples in
            (gate.process(samples, timestamp: frame.timestampNanoseconds), detector.process(samples))
        }
        let echoActive = isEchoActive(at: frame.timestampNanoseconds, delayMilliseconds: delay)
        if echoActive && !settings.echoControlled {
            // Half-duplex (talk.md §5.5, §6.5): without echo control, what the node itself
            // plays (replies, chimes) plus its tail is replaced by silence before wake and STT.
            for index in aec.indices { aec[index] = 0 }
            clean = aec
        }
        framesProcessed += 1
        let active = gateDecision.isSpeech || speech.isSpeech || echoActive || farEndRecentlyFed
        quietNanoseconds = active ? 0 : quietNanoseconds + UInt64(parts) * partNanoseconds
        let windowStart = echoWindowStart(at: frame.timestampNanoseconds, delay: delay)
        return FrontEndFrame(
            aec: aec, clean: clean, timestampNanoseconds: frame.timestampNanoseconds, sequence: frame.sequence,
            isSpeech: speech.isSpeech && (settings.echoControlled || !echoActive), rms: gateDecision.rms,
            noiseFloor: gate.noiseFloor, energyGateSpeech: gateDecision.isSpeech, echoActive: echoActive,
            inputRMS: frame.samples.withUnsafeBufferPointer { LevelMeter.rms($0) },
            farEndRMS: farEndLevels.loudest(since: windowStart),
            inputBands: echoActive ? inputBands(frame.samples) : BandLevels(),
            farEndBands: echoActive ? farEndLevels.loudestBands(since: windowStart) : BandLevels(),
            sinceFarEndWriteNanoseconds: lastFarEnd.map {
                frame.timestampNanoseconds > $0 ? frame.timestampNanoseconds - $0 : 0
            })
    }

    /// The raw capture's band levels (the analyser is made again only when the frame length changes).
    private func inputBands(_ samples: [Int16]) -> BandLevels {
        guard samples.count >= 2 else { return BandLevels() }
        if inputAnalyser?.frameSamples != samples.count {
            inputAnalyser = BandAnalyser(frameSamples: samples.count, sampleRate: settings.echoStage.sampleRate)
        }
        return samples.withUnsafeBufferPointer { inputAnalyser?.levels($0) ?? BandLevels() }
    }

    /// Band levels of the raw capture frames, and of the far-end frames (made on first use).
    private var inputAnalyser: BandAnalyser?
    private var farEndAnalyser: BandAnalyser?

    /// After this much audio without speech, echo or far-end frames the front end is idle: the
    /// capture engine may then hand over quiet frames in batches (``idleWakeLevel``).
    static let idleAfter: UInt64 = 1_000_000_000

    /// The level that ends an idle spell at once, or nil when not idle: twice the noise floor, at
    /// least half the gates' −60 dBFS minimum, so every frame that a speech gate could call speech
    /// (the wake segmenter's 2.5× the floor included) arrives without batching delay.
    var idleWakeLevel: Double? {
        guard quietNanoseconds >= Self.idleAfter else { return nil }
        return max(EnergyGate.minimumSpeechRMS / 2, gate.noiseFloor * 2)
    }

    /// True when a real far-end frame (not the idle silence) was fed during the last frame.
    private var farEndRecentlyFed = false
    /// The DC blocker of bypassed frames (its state restarts with each idle spell).
    private var dcBlocker = DCBlocker()
    /// Frames that skipped the echo stage because the front end was idle.
    private(set) var bypassedFrames = 0

    /// Idle bypass: after ``idleAfter`` without speech, echo or far end, a frame whose level
    /// without its DC offset is below ``idleWakeLevel`` and that has no far-end audio waiting
    /// skips the echo stage. There is no echo to cancel: the canceller has been fed silence for a
    /// second already. Its render and capture calls are skipped together, so it stays aligned, as
    /// after a pause; the first louder frame, or far-end audio, goes through it again. The clean
    /// stage (noise suppression, gain control: off by default) keeps running on the bypassed
    /// frames, so its noise estimate follows the room.
    private func canBypass(_ samples: [Int16]) -> Bool {
        guard let level = idleWakeLevel, farEnd.peek(reader) == nil else { return false }
        return samples.withUnsafeBufferPointer { LevelMeter.acRMS($0) } < level
    }

    /// Feeds the canceller every far-end frame written up to `end` (capture clock); when the far
    /// end is idle, one frame of silence instead, so render and capture keep the same pace.
    private func feedFarEnd(upTo end: UInt64) throws {
        var fed = 0
        defer { if fed > 0 { farEndRecentlyFed = true } }
        while let stamp = farEnd.peek(reader), stamp <= end {
            defer { farEnd.take(reader) }
            if end - stamp > Self.farEndStaleLimit {
                staleFarEndFrames += 1
                continue
            }
            if settings.stages.echoCancellation != .off {
                try echoStage.processRender(UnsafeBufferPointer(reader.frame))
            }
            let level = LevelMeter.rms(UnsafeBufferPointer(reader.frame))
            farEndLevels.record(level, bands: farEndBands(UnsafeBufferPointer(reader.frame), level: level), at: stamp)
            if level >= Self.farEndActiveRMS {
                lastActiveFarEnd = stamp
            }
            lastFarEnd = stamp
            fed += 1
        }
        farEndFramesFed += fed
        guard fed == 0, settings.stages.echoCancellation != .off else { return }
        if let lastFarEnd, end >= lastFarEnd, end - lastFarEnd <= Self.farEndIdleGap { return }
        try echoStage.processRender(UnsafeBufferPointer(silence))
        silenceFramesFed += 1
    }

    /// A far-end frame's band levels (silent frames are not analysed).
    private func farEndBands(_ frame: UnsafeBufferPointer<Int16>, level: Double) -> BandLevels {
        guard level >= Self.farEndActiveRMS, frame.count >= 2 else { return BandLevels() }
        if farEndAnalyser?.frameSamples != frame.count {
            farEndAnalyser = BandAnalyser(frameSamples: frame.count, sampleRate: settings.echoStage.sampleRate)
        }
        return farEndAnalyser?.levels(frame) ?? BandLevels()
    }

    /// The levels of the far-end frames fed, for ``FrontEndFrame/farEndRMS``.
    private var farEndLevels = FarEndLevels()

    /// How long after a far-end write its echo can reach the microphone: the echo delay plus
    /// ``FrontEndSettings/echoTail``, in nanoseconds.
    private func echoWindow(delayMilliseconds: Int) -> UInt64 {
        UInt64(max(0, delayMilliseconds)) * 1_000_000 + settings.echoTail.wholeNanoseconds
    }

    /// The oldest far-end write whose echo can be in a frame captured at `timestamp`.
    private func echoWindowStart(at timestamp: UInt64, delay: Int) -> UInt64 {
        let window = echoWindow(delayMilliseconds: delay)
        return timestamp > window ? timestamp - window : 0
    }

    /// Echo may be in a frame captured at `timestamp` when a non-silent far-end frame was fed and
    /// `timestamp` is within echo delay plus the tail after it.
    private func isEchoActive(at timestamp: UInt64, delayMilliseconds: Int) -> Bool {
        guard let lastActiveFarEnd else { return false }
        return timestamp <= lastActiveFarEnd + echoWindow(delayMilliseconds: delayMilliseconds)
    }
}

/// One owner at a time (the front end's lock).
@available(*, unavailable)
extension FrontEndProcessor: Sendable {}

/// A first-order DC blocker (pole 0.995, about 13 Hz at 16 kHz), for frames that skip the APM's
/// high-pass filter. It starts each run from the first block's mean, so the offset does not ring
/// through as a step (which a speech gate would hear).
struct DCBlocker {
    private var lastInput = 0.0
    private var lastOutput = 0.0
    private var primed = false

    mutating func process(_ samples: UnsafeMutableBufferPointer<Int16>) {
        if !primed, !samples.isEmpty {
            primed = true
            lastInput = samples.reduce(0.0) { $0 + Double($1) } / Double(samples.count)
        }
        for index in samples.indices {
            let input = Double(samples[index])
            let output = input - lastInput + 0.995 * lastOutput
            lastInput = input
            lastOutput = output
            samples[index] = Int16(clamping: Int(output.rounded()))
        }
    }

    mutating func reset() {
        lastInput = 0
        lastOutput = 0
        primed = false
    }
}
