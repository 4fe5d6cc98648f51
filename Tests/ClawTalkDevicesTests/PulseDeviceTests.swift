import ClawTalkAudio
import ClawTalkDevices
import ClawTalkTestTraits
import Foundation
import Testing

/// Tests against a running PulseAudio server set up by `scripts/audio-rig start`: sink `vspk`
/// ("TestSpeaker", 16 kHz mono) and source `vmic` ("TestMic") remapped from its monitor.
/// Serialized, because they share the rig's one speaker.
@Suite(
    "PulseAudio devices (rig)", .serialized, .audioRig,
    .needsAudioRig)
struct PulseDeviceTests {
    /// Holds what the capture thread read; handed back through a semaphore.
    final class CaptureResult: @unchecked Sendable {
        var samples: [Int16] = []
        var error: (any Error)?
    }

    /// Captures `milliseconds` from `source` on a thread while `body` runs on this one, starting
    /// `body` after `preRollMilliseconds` so the capture begins with a stretch of silence.
    private func capture(
        from source: String, milliseconds: Int, preRollMilliseconds: Int, paced: Bool = false,
        during body: () throws -> Void
    ) throws -> [Int16] {
        let format = AudioFormat.speech
        let stream = try PulseCaptureStream(format: format, device: source, pacedReads: paced)
        let result = CaptureResult()
        let done = DispatchSemaphore(value: 0)
        let total = format.sampleCount(milliseconds: milliseconds)
        let thread = Thread {
            var samples = [Int16](repeating: 0, count: total)
            let chunk = format.sampleCount(milliseconds: 20)
            do {
                try samples.withUnsafeMutableBufferPointer { all in
                    var offset = 0
                    while offset < total {
                        let part = UnsafeMutableBufferPointer(rebasing: all[offset..<min(offset + chunk, total)])
                        try stream.read(into: part)
                        offset += part.count
                    }
                }
            } catch {
                result.error = error
            }
            result.samples = samples
            stream.close()
            done.signal()
        }
        thread.start()
        Thread.sleep(forTimeInterval: Double(preRollMilliseconds) / 1000)
        try body()
        done.wait()
        if let error = result.error { throw error }
        return result.samples
    }

    /// Goertzel power at `frequency` in consecutive 20 ms windows.
    private func windows(_ samples: [Int16], frequency: Double) -> [Double] {
        stride(from: 0, to: samples.count - 319, by: 320).map {
            TestSignals.goertzel(samples[$0..<$0 + 320], frequency: frequency, sampleRate: 16000)
        }
    }

    @Test("the catalog lists the rig's TestMic source and TestSpeaker sink, defaults marked")
    func catalogListsRig() throws {
        let devices = try PulseDeviceCatalog().devices()
        let mic = try #require(devices.first { $0.kind == .source && $0.name == "vmic" })
        #expect(mic.description == "TestMic")
        #expect(mic.isDefault)
        #expect(!mic.isMonitor)
        #expect(mic.sampleRate == 16000 && mic.channels == 1)
        let speaker = try #require(devices.first { $0.kind == .sink && $0.name == "vspk" })
        #expect(speaker.description == "TestSpeaker")
        #expect(speaker.isDefault)
        #expect(speaker.sampleRate == 16000 && speaker.channels == 1)
        let monitor = try #require(devices.first { $0.kind == .source && $0.name == "vspk.monitor" })
        #expect(monitor.isMonitor)
        #expect(!monitor.isDefault)
        #expect(devices.filter(\.isDefault).count == 2)
    }

    @Test("resolve finds devices by exact name or case-insensitive description")
    func resolveOnServer() throws {
        let catalog = PulseDeviceCatalog()
        #expect(try catalog.resolve(source: "testmic").name == "vmic")
        #expect(try catalog.resolve(source: "vspk.monitor").isMonitor)
        #expect(try catalog.resolve(sink: "TESTSPEAKER").name == "vspk")
        #expect {
            try catalog.resolve(source: "Nonexistent Mic")
        } throws: { error in
            guard case AudioDeviceError.notFound(let name, let available) = error else { return false }
            return name == "Nonexistent Mic" && available.contains("vmic") && !available.contains("vspk")
        }
    }

    @Test(
        "a 1 kHz tone played to vspk arrives at vmic, whole, with prompt and with paced reads",
        arguments: [false, true])
    func toneLoopback(paced: Bool) throws {
        let tone = TestSignals.tone(frequency: 1000, seconds: 0.5, sampleRate: 16000, amplitude: 0.3)
        var playbackLatency: UInt64 = 0
        // 3 s of capture for a 0.5 s tone: room for a playback that starts late on a busy machine.
        let captured = try capture(from: "vmic", milliseconds: 3000, preRollMilliseconds: 300, paced: paced) {
            let speaker = try PulsePlaybackStream(format: .speech, device: "vspk")
            try tone.withUnsafeBufferPointer { all in
                for start in stride(from: 0, to: all.count, by: 320) {
                    try speaker.write(UnsafeBufferPointer(rebasing: all[start..<min(start + 320, all.count)]))
                }
            }
            playbackLatency = try speaker.latencyMicroseconds()
            try speaker.drain()
            speaker.close()
        }
        let at1k = windows(captured, frequency: 1000)
        let at3k = windows(captured, frequency: 3000)
        // The first 200 ms precede playback (the pre-roll is 300 ms).
        let silence = at1k[0..<10].max() ?? 0
        let peak = at1k.max() ?? 0
        let toneWindows = at1k.filter { $0 > peak / 4 }.count
        print(
            "1 kHz Goertzel: silence \(silence), tone peak \(peak), windows with tone \(toneWindows), "
                + "playback latency \(playbackLatency) µs")
        #expect(peak > 1000 * (silence + 1), "tone not clearly above the silence before it")
        #expect(toneWindows >= 20 && toneWindows <= 27, "the 0.5 s tone should fill ~25 windows of 20 ms")
        let peakIndex = try #require(at1k.firstIndex(of: peak))
        #expect(at3k[peakIndex] * 100 < peak, "the captured energy is not at 1 kHz")
        #expect(playbackLatency < 500_000)
    }

    @Test("flush drops queued playback: less of the tone arrives than with drain")
    func flushDropsQueuedAudio() throws {
        // 1 s of tone through a 500 ms buffer: the write returns with about 500 ms still queued, so
        // the flush drops most of it even when a busy machine is slow to get from write to flush.
        let tone = TestSignals.tone(frequency: 1000, seconds: 1.0, sampleRate: 16000, amplitude: 0.3)
        var flushTime = Duration.zero
        func tenMillisecondWindowsWithTone(flush: Bool) throws -> Int {
            let captured = try capture(from: "vmic", milliseconds: 3000, preRollMilliseconds: 100) {
                let speaker = try PulsePlaybackStream(format: .speech, device: "vspk", targetLatencyMilliseconds: 500)
                try speaker.write(tone)
                if flush {
                    flushTime = try ContinuousClock().measure { try speaker.flush() }
                } else {
                    try speaker.drain()
                }
                speaker.close()
            }
            return stride(from: 0, to: captured.count - 159, by: 160).filter {
                TestSignals.energy(captured[$0..<$0 + 160]) > 160 * 1000
            }.count
        }
        let drained = try tenMillisecondWindowsWithTone(flush: false)
        let flushed = try tenMillisecondWindowsWithTone(flush: true)
        print("10 ms windows with tone: drained \(drained), flushed \(flushed); flush took \(flushTime)")
        #expect(drained >= 99 && drained <= 101, "drain should play the whole second")
        #expect(flushed <= drained - 20, "flush should have dropped most of the queued 500 ms")
        // That flush does not wait for the queue to play is what the counts show; its duration
        // (printed) is the machine's business.
    }

    @Test("a paced read of a source that delivers nothing fails after the stall limit, and the stream recovers")
    func stalledSource() throws {
        let stream = try PulseCaptureStream(format: .speech, device: "vmic", pacedReads: true, stallLimit: .seconds(1))
        var frame = [Int16](repeating: 0, count: 320)
        try frame.withUnsafeMutableBufferPointer { try stream.read(into: $0) }
        let resume = try RigServer.stall(source: "vmic")
        defer { resume() }
        var failure: (any Error)?
        for _ in 0..<200 where failure == nil {
            do {
                try frame.withUnsafeMutableBufferPointer { try stream.read(into: $0) }
            } catch {
                failure = error
            }
        }
        print("stalled read: \(failure.map { "\($0)" } ?? "none")")
        #expect(failure.map { "\($0)".contains("no audio from the source") } == true)
        stream.close()
        resume()
        let again = try PulseCaptureStream(format: .speech, device: "vmic", pacedReads: true)
        try frame.withUnsafeMutableBufferPointer { try again.read(into: $0) }
        again.close()
    }

    @Test("capture latency is reported and bounded")
    func captureLatency() throws {
        let stream = try PulseCaptureStream(format: .speech, device: "vmic")
        var frame = [Int16](repeating: 0, count: 320)
        try frame.withUnsafeMutableBufferPointer { try stream.read(into: $0) }
        let latency = try stream.latencyMicroseconds()
        // Reported and plausible (the audio queued since the open; more if this thread was slow).
        #expect(latency < 2_000_000)
        stream.close()
        stream.close()
        #expect(throws: AudioDeviceError.self) { try stream.latencyMicroseconds() }
    }

    @Test("opening a device that does not exist fails with a clear .open error")
    func missingDevice() throws {
        #expect {
            try PulseCaptureStream(format: .speech, device: "no-such-mic")
        } throws: { error in
            guard case AudioDeviceError.open(let device, let message) = error else { return false }
            print("missing capture device: \(error)")
            return device == "no-such-mic" && !message.isEmpty && "\(error)".contains("'no-such-mic'")
        }
        #expect {
            try PulsePlaybackStream(format: .speech, device: "no-such-speaker")
        } throws: { error in
            guard case AudioDeviceError.open(let device, _) = error else { return false }
            return device == "no-such-speaker"
        }
    }

    @Test("the device watcher's connection stays open across listings and sees a sink loaded meanwhile")
    func watcherConnectionIsKept() throws {
        let before = try Self.ownClients()
        let lister = PulseCaptureBackend().makeDeviceLister()
        _ = try lister.devices()
        // A connection per listing (what the watcher did before) is closed again by now.
        let kept = try Self.ownClients().subtracting(before)
        try #require(!kept.isEmpty, "no connection of this process stayed open after a listing")
        let module = try ClawTalkDevicesTests.pactl(
            "load-module", "module-null-sink", "sink_name=ct_watch_probe", "rate=16000", "channels=1")
        defer { _ = try? ClawTalkDevicesTests.pactl("unload-module", module) }
        let devices = try (0..<3).map { _ in try lister.devices() }.last ?? []
        #expect(devices.contains { $0.kind == .sink && $0.name == "ct_watch_probe" })
        #expect(try Self.ownClients().isSuperset(of: kept), "the same connection, not a new one")
    }

    /// Indices of this process's clients on the rig's server.
    static func ownClients() throws -> Set<Int> {
        let pid = "\"\(getpid())\""
        var clients = Set<Int>()
        var current: Int?
        for line in try ClawTalkDevicesTests.pactl("list", "clients").split(separator: "\n") {
            if line.hasPrefix("Client #") {
                current = Int(line.dropFirst("Client #".count))
            } else if let index = current, line.contains("application.process.id = \(pid)") {
                clients.insert(index)
            }
        }
        return clients
    }
}
