import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

/// ``AudioFrontEnd`` behaviour without a sound server: half-duplex, the clean stage, streams,
/// pre-roll, far-end housekeeping and settings.
@Suite("Front end: behaviour")
struct AudioFrontEndTests {
    typealias Fixtures = FrontEndFixtures
    static let origin: UInt64 = 1_000_000_000

    /// Pushes loud far-end frames written from `start` to `end` seconds after `origin`.
    static func farEnd(_ frontEnd: AudioFrontEnd, from start: Double, to end: Double) -> (UInt64) -> Void {
        let tone = TestSignals.tone(frequency: 440, seconds: 0.01, sampleRate: 16000, amplitude: 0.3)
        var next = origin + UInt64(start * 1e9)
        let last = origin + UInt64(end * 1e9)
        return { stamp in
            while next <= min(stamp, last) {
                tone.withUnsafeBufferPointer { frontEnd.pushFarEnd($0, timestampNanoseconds: next) }
                next += 10_000_000
            }
        }
    }

    /// A continuous loud talker: speech-like bursts every few hundred milliseconds.
    static func talker(seconds: Double) -> [Int16] {
        TestSignals.speechLike(seconds: seconds, sampleRate: 16000, seed: 5)
    }

    @Test("without AEC: no speech while the far end plays and for 300 ms after its echo (half-duplex)")
    func halfDuplex() throws {
        let frontEnd = try AudioFrontEnd(settings: FrontEndSettings(stages: ProcessingSettings(echoCancellation: .off)))
        #expect(!frontEnd.echoControlled)
        let frames = try Fixtures.drive(
            frontEnd, near: Self.talker(seconds: 3), origin: Self.origin,
            farEnd: Self.farEnd(frontEnd, from: 1.0, to: 1.5))
        // Echo delay without a playback controller: 50 ms assumed − 10 ms headroom = 40 ms.
        #expect(frontEnd.stats.echoDelayMilliseconds == 40)
        let muteEnd = Self.origin + UInt64((1.5 + 0.040 + 0.300) * 1e9)
        for frame in frames {
            let time = frame.timestampNanoseconds
            if time >= Self.origin + 1_000_000_000, time <= muteEnd {
                #expect(frame.echoActive && !frame.isSpeech, "frame at \(time) during far end or tail")
                // Its audio is silence for wake and STT (chimes and replies never reach them).
                #expect(frame.aec.allSatisfy { $0 == 0 } && frame.clean.allSatisfy { $0 == 0 })
            }
            if time > muteEnd + 20_000_000 || time < Self.origin + 1_000_000_000 {
                #expect(!frame.echoActive, "frame at \(time) after the tail")
            }
        }
        let before = frames.filter { $0.timestampNanoseconds < Self.origin + 1_000_000_000 && $0.isSpeech }
        let after = frames.filter { $0.timestampNanoseconds > muteEnd + 20_000_000 && $0.isSpeech }
        #expect(before.count > 10 && after.count > 10, "speech outside the muted span: \(before.count), \(after.count)")
    }

    @Test("echo control (AEC, or isolated output) keeps speech detection on during playback")
    func echoControlledListens() throws {
        for settings in [
            FrontEndSettings(stages: ProcessingSettings(echoCancellation: .off), outputIsolated: true),
            FrontEndSettings(),
        ] {
            let frontEnd = try AudioFrontEnd(settings: settings)
            #expect(frontEnd.echoControlled)
            let frames = try Fixtures.drive(
                frontEnd, near: Self.talker(seconds: 2.5), origin: Self.origin,
                farEnd: Self.farEnd(frontEnd, from: 1.0, to: 2.0))
            let during = frames.filter {
                $0.echoActive && $0.timestampNanoseconds > Self.origin + 1_100_000_000 && $0.isSpeech
            }
            #expect(
                during.count > 10, "\(settings.stages.echoCancellation): \(during.count) speech frames during playback")
        }
    }

    @Test("the clean stage: noise suppression lowers stationary noise in `clean` only; off means clean == aec")
    func cleanStage() throws {
        let noise = Fixtures.pcm(Fixtures.Noise.white.samples(count: 2 * Fixtures.rate), dBFS: -40)
        let suppressed = try AudioFrontEnd(
            settings: FrontEndSettings(stages: ProcessingSettings(noiseSuppression: .high)))
        let frames = try Fixtures.drive(suppressed, near: noise)
        let late = frames.suffix(50)
        let aecEnergy = TestSignals.energy(late.flatMap(\.aec))
        let cleanEnergy = TestSignals.energy(late.flatMap(\.clean))
        let inputEnergy = TestSignals.energy(noise.suffix(late.count * 320))
        let reduction = 10 * log10(aecEnergy / max(cleanEnergy, 1))
        print("noise suppression (high) on white noise: \(String(format: "%.1f", reduction)) dB below the AEC signal")
        #expect(reduction > 6)
        #expect(abs(10 * log10(inputEnergy / aecEnergy)) < 1, "the AEC signal must not be noise-suppressed")

        let plain = try AudioFrontEnd()
        #expect(try Fixtures.drive(plain, near: noise).allSatisfy { $0.clean == $0.aec })

        let quiet = Fixtures.pcm(
            TestSignals.speechLike(seconds: 2, sampleRate: 16000).map { Double($0) }, dBFS: -45)
        let gained = try Fixtures.drive(
            try AudioFrontEnd(settings: FrontEndSettings(stages: ProcessingSettings(gainControl: .adaptive))),
            near: quiet)
        let cleanLevel = TestSignals.energy(gained.suffix(50).flatMap(\.clean))
        let gain = 10 * log10(cleanLevel / TestSignals.energy(gained.suffix(50).flatMap(\.aec)))
        #expect(gain > 3, "gain control raised quiet speech by only \(gain) dB")
    }

    @Test("frames() streams keep the newest 25 frames and finish with the capture stream; pre-roll holds 500 ms")
    func streamsAndPreRoll() async throws {
        let frontEnd = try AudioFrontEnd()
        let (capture, input) = AsyncStream.makeStream(of: CapturedFrame.self)
        let first = frontEnd.frames()
        let second = frontEnd.frames()
        try frontEnd.start(capture)
        let speech = Self.talker(seconds: 0.8)
        for index in 0..<40 {
            input.yield(
                CapturedFrame(
                    samples: Array(speech[index * 320..<(index + 1) * 320]),
                    timestampNanoseconds: Self.origin + UInt64(index + 1) * 20_000_000, sequence: UInt64(index)))
        }
        input.finish()
        // Read only after everything was processed and handed to both streams (the frame count
        // goes up before the hand-off; each stream then drops 15 and holds the newest 25). A
        // loaded debug build can need more than a second for the 40 frames of AEC and NS.
        _ = await eventually(within: .seconds(10)) { frontEnd.stats.frames >= 40 && frontEnd.stats.streamDrops >= 30 }
        try #require(frontEnd.stats.frames == 40, "the front end did not process the 40 frames in 10 s")
        var received: [FrontEndFrame] = []
        for await frame in first { received.append(frame) }
        var count = 0
        for await _ in second { count += 1 }
        #expect(received.map(\.sequence) == (15..<40).map { UInt64($0) })
        #expect(count == 25)
        #expect(frontEnd.stats.streamDrops == 30)
        let preRoll = frontEnd.preRoll()
        #expect(preRoll.count == 8000)
        #expect(preRoll == Array(received.flatMap(\.aec).suffix(8000)))
        #expect(frontEnd.stats.frames == 40)
    }

    @Test("stop() finishes the streams; a stopped front end cannot start again")
    func stopFinishes() async throws {
        let frontEnd = try AudioFrontEnd()
        let (capture, _) = AsyncStream.makeStream(of: CapturedFrame.self)
        let frames = frontEnd.frames()
        try frontEnd.start(capture)
        frontEnd.stop()
        for await _ in frames { Issue.record("no frame expected") }
        for await _ in frontEnd.frames() { Issue.record("no frame expected after stop") }
        #expect(throws: AudioDeviceError.self) { try frontEnd.start(capture) }
    }

    @Test("far-end housekeeping: stale frames are dropped, a full buffer and wrong lengths are counted")
    func farEndHousekeeping() throws {
        let frontEnd = try AudioFrontEnd(settings: FrontEndSettings(farEndCapacity: 20))
        let frame = [Int16](repeating: 1000, count: 160)
        for index in 0..<25 {
            frame.withUnsafeBufferPointer { frontEnd.pushFarEnd($0, timestampNanoseconds: UInt64(index) * 10_000_000) }
        }
        [Int16](repeating: 0, count: 100).withUnsafeBufferPointer { frontEnd.pushFarEnd($0, timestampNanoseconds: 0) }
        #expect(frontEnd.stats.farEndFrames == 20)
        #expect(frontEnd.stats.farEndDropped == 6)
        // A capture two seconds later: all 20 frames are too old to align.
        let capture = CapturedFrame(
            samples: [Int16](repeating: 0, count: 320), timestampNanoseconds: 2_500_000_000, sequence: 0)
        let result = try frontEnd.process(capture)
        #expect(frontEnd.stats.farEndStale == 20)
        #expect(frontEnd.stats.farEndFed == 0)
        #expect(!result.echoActive)
    }

    @Test("each frame tells how long ago the far end was last written, silence included (nil before any write)")
    func sinceFarEndWrite() throws {
        let frontEnd = try AudioFrontEnd()
        let capture = { (stamp: UInt64, sequence: UInt64) in
            try frontEnd.process(
                CapturedFrame(
                    samples: [Int16](repeating: 0, count: 320), timestampNanoseconds: stamp, sequence: sequence))
        }
        #expect(try capture(1_000_000_000, 0).sinceFarEndWriteNanoseconds == nil)
        // Digital silence written (a pause in the speech) counts as a write.
        let silent = [Int16](repeating: 0, count: 160)
        silent.withUnsafeBufferPointer { frontEnd.pushFarEnd($0, timestampNanoseconds: 1_005_000_000) }
        #expect(try capture(1_020_000_000, 1).sinceFarEndWriteNanoseconds == 15_000_000)
        // Nothing written since: the wait grows with the capture clock.
        #expect(try capture(1_100_000_000, 2).sinceFarEndWriteNanoseconds == 95_000_000)
    }

    @Test("a capture frame that is not whole 10 ms steps is an error, counted, and processing goes on")
    func wrongFrameLength() throws {
        let frontEnd = try AudioFrontEnd()
        #expect(throws: AudioDeviceError.self) {
            try frontEnd.process(
                CapturedFrame(samples: [Int16](repeating: 0, count: 300), timestampNanoseconds: 1, sequence: 0))
        }
        #expect(frontEnd.stats.errors == 1)
        let ten = try frontEnd.process(
            CapturedFrame(samples: [Int16](repeating: 0, count: 160), timestampNanoseconds: 2, sequence: 1))
        #expect(ten.aec.count == 160)
        let thirty = try frontEnd.process(
            CapturedFrame(samples: [Int16](repeating: 0, count: 480), timestampNanoseconds: 3, sequence: 2))
        #expect(thirty.aec.count == 480 && thirty.clean.count == 480)
    }

    @Test("the output-latency source is called the same way on every frame (no closure re-wrapped per read)")
    func latencySourceDoesNotGrowPerFrame() throws {
        // A closure kept in a Mutex and read per frame came back re-wrapped in thunks each time:
        // its call stack grew by two frames per audio frame (idle CPU rising with uptime).
        let frontEnd = try AudioFrontEnd()
        let depths = Mutex<[Int]>([])
        frontEnd.attach(outputLatency: {
            depths.locked { $0.append(Thread.callStackSymbols.count) }
            return .milliseconds(40)
        })
        for sequence in 0..<400 {
            _ = try frontEnd.process(
                CapturedFrame(
                    samples: [Int16](repeating: 0, count: 160), timestampNanoseconds: UInt64(sequence + 1) * 10_000_000,
                    sequence: UInt64(sequence)))
        }
        let seen = depths.locked { $0 }
        #expect(seen.count == 400)
        #expect(Set(seen).count == 1, "call depth went from \(seen.first ?? 0) to \(seen.last ?? 0)")
    }

    @Test("settings from the config file's processing.* section")
    func settingsFromConfig() {
        var processing = ProcessingSettings()
        #expect(FrontEndSettings(processing: processing) == FrontEndSettings(preRollMilliseconds: 300))
        processing.echoCancellation = .aecm
        processing.aecSuppression = .low
        processing.noiseSuppression = .veryhigh
        processing.gainControl = .adaptive
        processing.highPassFilter = false
        var mic = MicSettings()
        mic.preRollMs = 100
        let settings = FrontEndSettings(processing: processing, mic: mic)
        #expect(settings.stages == processing)
        #expect(settings.preRollMilliseconds == 300)
        processing.echoCancellation = .off
        #expect(!FrontEndSettings(processing: processing).echoControlled)
    }
}
