import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

@Suite("clawtalk say", .serialized, .audioRig)
struct SayCommandTests {
    @Test func aCorruptClipIsAClearErrorBeforeAnyPlayback() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("say-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("garbage.mp3")
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: clip)
        let result = try await ClawTalkBinary.run(["say", "--file", clip.path])
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("Error: cannot play '\(clip.path)':"))
        let missing = try await ClawTalkBinary.run(["say", "--file", dir.appendingPathComponent("none.wav").path])
        #expect(missing.status == 64)
        #expect(missing.error.contains("no such file"))
    }

    @Test func withoutAGatewaySayNotesTheLocalFallback() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let result = try await ClawTalkBinary.run(["say", "hello"], environment: home.environment)
        #expect(
            result.error.hasPrefix("Note: no gateway is configured; speaking with espeak-ng on this machine.\n"),
            "\(result.error)")
        // Spoken (exit 0) with a sound server, else the missing server is reported (exit 69).
        if result.status != 0 {
            #expect(result.status == 69)
            #expect(result.error.contains("no sound server"))
        }
    }

    @Test func aConfiguredGatewayWithoutADeviceIdentityIsNotContacted() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        var environment = home.environment
        environment["CLAWTALK_GATEWAY_URL"] = "ws://127.0.0.1:9"
        let result = try await ClawTalkBinary.run(["say", "hello"], environment: environment)
        #expect(result.error.hasPrefix("Note: this device has no identity yet"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: home.state + "/clawtalk/identity.json"))
    }

    @Test func sayLastNeedsASavedReply() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let missing = try await ClawTalkBinary.run(["say", "--last"], environment: home.environment)
        #expect(missing.status == 1)
        #expect(missing.error.hasPrefix("Error: no reply has been spoken yet"))
        let state = try StateDirectory(path: home.state + "/clawtalk")
        try LastReplyStore(directory: state).save(.init(text: "The saved reply.", savedAtMs: 1))
        let again = try await ClawTalkBinary.run(["say", "--last"], environment: home.environment)
        #expect(again.error.hasPrefix("Note: no gateway is configured"), "\(again.error)")
        #expect(again.status == 0 || again.error.contains("no sound server"))
    }

    @Test(.needsAudioRig)
    func localSpeechIsHeardOnTheSpeaker() async throws {
        let heard = try await Self.recordSpeaker {
            try await ClawTalkBinary.run(["say", "--local", "Hello there. Testing one two."])
        }
        #expect(heard.status == 0, "\(heard.error)")
        #expect(heard.loudSeconds > 0.8, "only \(heard.loudSeconds) s of speech reached the speaker monitor")
    }

    @Test(.needsAudioRig)
    func aWavClipIsPlayedWholeOnTheSpeaker() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("say-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("tone.wav")
        try Self.toneWAV(seconds: 0.6, frequency: 500, rate: 22050).write(to: clip)
        let heard = try await Self.recordSpeaker { try await ClawTalkBinary.run(["say", "--file", clip.path]) }
        #expect(heard.status == 0, "\(heard.error)")
        #expect(abs(heard.loudSeconds - 0.6) < 0.1, "heard \(heard.loudSeconds) s of a 0.6 s tone")
    }

    /// Runs `body` while `parec` records the rig's speaker monitor; returns the exit status and
    /// how many seconds of the recording were above −40 dBFS (in 10 ms windows).
    static func recordSpeaker(_ body: () async throws -> ClawTalkBinary.Result) async throws -> (
        status: Int32, error: String, loudSeconds: Double
    ) {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("speaker-\(UUID().uuidString).raw")
        _ = FileManager.default.createFile(atPath: raw.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: raw) }
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/parec")
        recorder.arguments = [
            "-d", "vspk.monitor", "--raw", "--format=s16le", "--rate=16000", "--channels=1", "--latency-msec=20",
        ]
        recorder.standardOutput = try FileHandle(forWritingTo: raw)
        try recorder.run()
        // parec may be slow to start on a busy machine: go on once it delivers (the rig keeps vspk
        // running, so its monitor always has data), then give it time to write the end.
        let recording = Date().addingTimeInterval(30)
        while recorder.isRunning, Date() < recording, (try? Data(contentsOf: raw))?.isEmpty ?? true {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(400))
        let result = try await body()
        try await Task.sleep(for: .seconds(1))
        // SIGKILL: the in-process ServiceRunner tests leave SIGTERM/SIGINT ignored in this process,
        // and children inherit ignored signals.
        kill(recorder.processIdentifier, SIGKILL)
        recorder.waitUntilExit()
        let data = try Data(contentsOf: raw)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        var loudWindows = 0
        var index = 0
        while index + 160 <= samples.count {
            let window = samples[index..<index + 160]
            let rms = (window.reduce(0.0) { $0 + Double($1) * Double($1) } / 160).squareRoot() / 32768
            if rms > 0.01 { loudWindows += 1 }
            index += 160
        }
        return (result.status, result.error, Double(loudWindows) * 0.01)
    }

    /// A 16-bit mono WAV of a sine tone at −6 dBFS.
    static func toneWAV(seconds: Double, frequency: Double, rate: Int) -> Data {
        let count = Int(seconds * Double(rate))
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + count * 2))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))
        append(UInt16(1))
        append(UInt32(rate))
        append(UInt32(rate * 2))
        append(UInt16(2))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(count * 2))
        for i in 0..<count {
            append(Int16(16384 * sin(2 * Double.pi * frequency * Double(i) / Double(rate))))
        }
        return data
    }
}
