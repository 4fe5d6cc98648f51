import ClawTalkAudio
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

@testable import ClawTalkDevices

/// Issue 35: a stop reaches the capture thread at any moment, including while the sound server
/// sends nothing (opening its connection, or waiting for the first audio). No timings are
/// asserted: without the stop checks these would end with other errors (the 5 s open limit, the
/// stall limit) or hang until the suite's limit.
@Suite(.timeLimit(.minutes(1)))
struct CaptureStopTests {
    /// Set from another thread after a delay.
    final class Flag: Sendable {
        let raised = Atomic<Bool>(false)

        func raise(after seconds: Double) {
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                self.raised.store(true, ordering: .relaxed)
            }
        }

        var check: @Sendable () -> Bool { { self.raised.load(ordering: .relaxed) } }
    }

    @Test func aStreamOpeningOnASilentServerGivesUpWhenStopped() throws {
        let server = try SilentSoundServer()
        let stop = Flag()
        stop.raise(after: 0.2)
        #expect(throws: AudioDeviceError.interrupted) {
            _ = try PulseCaptureStream(
                server: server.address, openTimeout: .seconds(30), shouldStop: stop.check)
        }
    }

    @Test func anEngineStopped0_2sAfterStartingOnASilentServerEndsItsStart() throws {
        let server = try SilentSoundServer()
        let engine = CaptureEngine(
            configuration: CaptureConfiguration(startTimeout: .seconds(30)),
            backend: PulseCaptureBackend(catalog: PulseDeviceCatalog(server: server.address), pacedReads: true))
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let starter = Thread {
            let result = Result<Void, any Error> { try engine.start() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        starter.start()
        Thread.sleep(forTimeInterval: 0.2)
        engine.stop()
        done.wait()
        let result = try #require(outcome.withLock { $0 })
        #expect(throws: AudioDeviceError.interrupted) { try result.get() }
        #expect(engine.state == .stopped)
    }
}

/// The same on the audio rig's real PulseAudio: a read from a suspended source (it sends nothing)
/// returns as soon as its owner stops, instead of at the stall limit.
@Suite(
    "Capture stop (rig)", .serialized, .audioRig, .timeLimit(.minutes(1)),
    .needsAudioRig)
struct CaptureStopRigTests {
    @Test func aReadFromASuspendedSourceReturnsWhenStopped() throws {
        let stop = CaptureStopTests.Flag()
        let stream = try PulseCaptureStream(
            device: "vmic", pacedReads: true, stallLimit: .seconds(30), shouldStop: stop.check)
        defer { stream.close() }
        var frame = [Int16](repeating: 0, count: 320)
        try frame.withUnsafeMutableBufferPointer { try stream.read(into: $0) }
        let resume = try RigServer.stall(source: "vmic")
        defer { resume() }
        // Drain what was captured before the suspension, then wait on nothing until stopped.
        stop.raise(after: 0.5)
        var reads = 0
        while !stop.check() {
            var block = [Int16](repeating: 0, count: 16000)
            try block.withUnsafeMutableBufferPointer { try stream.read(into: $0) }
            reads += 1
        }
        #expect(reads >= 1)
    }
}
