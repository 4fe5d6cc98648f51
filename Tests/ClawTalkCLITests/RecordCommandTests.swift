import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkCLI

@Suite("clawtalk record", .serialized, .audioRig)
struct RecordCommandTests {
    /// A scratch directory and private XDG home for one test.
    struct Scratch {
        let directory: URL
        let home: TemporaryHome

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            home = try TemporaryHome()
        }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        func remove() {
            try? FileManager.default.removeItem(at: directory)
            home.remove()
        }
    }

    /// The 16 kHz mono samples of a canonical 44-byte-header WAV file, after checking its format.
    static func readWAV(_ path: String) throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try #require(data.count >= 44)
        func u16(_ offset: Int) -> Int { Int(data[offset]) | Int(data[offset + 1]) << 8 }
        func u32(_ offset: Int) -> Int { u16(offset) | u16(offset + 2) << 16 }
        #expect(String(decoding: data[0..<4], as: UTF8.self) == "RIFF")
        #expect(String(decoding: data[8..<16], as: UTF8.self) == "WAVEfmt ")
        #expect(u16(20) == 1, "PCM")
        #expect(u16(22) == 1, "mono")
        #expect(u32(24) == 16000, "16 kHz")
        #expect(u16(34) == 16, "16 bit")
        #expect(u32(40) == data.count - 44)
        return stride(from: 44, to: data.count - 1, by: 2).map { Int16(bitPattern: UInt16(u16($0))) }
    }

    // MARK: - Without a sound server

    @Test func anUnwritablePathFailsBeforeCapturing() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let missing = try await ClawTalkBinary.run(
            ["record", scratch.path("no/such/dir/out.wav")], environment: scratch.home.environment)
        #expect(missing.status == 1)
        #expect(
            missing.error
                == "Error: cannot write '\(scratch.path("no/such/dir/out.wav"))': no such directory '\(scratch.path("no/such/dir"))'\n"
        )
        let directory = try await ClawTalkBinary.run(
            ["record", scratch.directory.path], environment: scratch.home.environment)
        #expect(directory.status == 1)
        #expect(directory.error.contains("it is a directory"))
        #expect(missing.output.isEmpty && directory.output.isEmpty)
    }

    @Test(arguments: ["0", "0.05", "3600.5", "-1", "abc"])
    func secondsOutOfRangeIsAUsageError(seconds: String) async throws {
        let result = try await ClawTalkBinary.run(["record", "--seconds", seconds, "/tmp/never-written.wav"])
        #expect(result.status == 64)
        #expect(result.error.contains("Usage: clawtalk record"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written.wav"))
    }

    @Test func aMissingSoundServerIsExit69WithAHint() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try await ClawTalkBinary.run(
            ["record", "--seconds", "1", scratch.path("out.wav")],
            environment: scratch.home.environment.merging(["PULSE_SERVER": "unix:/nonexistent/native"]) { $1 })
        #expect(result.status == 69)
        #expect(result.error.hasPrefix("Error: no sound server:"))
        #expect(result.error.contains("PulseAudio or pipewire-pulse"))
    }

    // MARK: - Meter

    @Test func meterLineShowsLevelBarAndTime() {
        #expect(
            RecordCommand.Meter.line(dBFS: -30, elapsed: 2.34, total: 5)
                == "[##########----------]  -30.0 dBFS  2.3/5.0 s")
        #expect(
            RecordCommand.Meter.line(dBFS: 0, elapsed: 5, total: 5) == "[####################]    0.0 dBFS  5.0/5.0 s")
        #expect(
            RecordCommand.Meter.line(dBFS: -120, elapsed: 0, total: 0.1)
                == "[--------------------]  -99.9 dBFS  0.0/0.1 s")
    }

    @Test func meterRedrawsTenTimesASecondOnATerminalAndOncePerSecondOtherwise() {
        let tone = (0..<320).map { Int16(16384 * sin(Double($0) * 2 * .pi / 16)) }[...]
        for isTerminal in [true, false] {
            var meter = RecordCommand.Meter(isTerminal: isTerminal, totalSeconds: 2)
            var output = ""
            for frame in 1...100 {
                if let text = meter.add(tone, elapsed: Double(frame) * 0.02) { output += text }
            }
            output += meter.finish(elapsed: 2)
            if isTerminal {
                #expect(output.filter { $0 == "\r" }.count == 21)
                #expect(output.hasSuffix("2.0/2.0 s\n"))
                #expect(output.filter { $0 == "\n" }.count == 1)
            } else {
                #expect(!output.contains("\r"))
                #expect(
                    output
                        == "[#################---]   -9.0 dBFS  1.0/2.0 s\n[#################---]   -9.0 dBFS  2.0/2.0 s\n"
                )
            }
        }
    }

    // MARK: - With the audio rig

    /// Plays a 1 kHz tone (−6 dBFS) into the rig's speaker `vspk`, which the default source `vmic` hears.
    static func playTone(seconds: Double) throws -> Process {
        let wav = FileManager.default.temporaryDirectory.appendingPathComponent("tone-\(UUID().uuidString).wav")
        try SayCommandTests.toneWAV(seconds: seconds, frequency: 1000, rate: 16000).write(to: wav)
        let player = Process()
        player.executableURL = URL(fileURLWithPath: "/usr/bin/paplay")
        player.arguments = ["--device=vspk", wav.path]
        try player.run()
        return player
    }

    /// Stops a helper process; SIGKILL because children may inherit ignored SIGTERM/SIGINT.
    static func kill(_ process: Process) {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Goertzel power of `frequency` (16 kHz), normalised by the length.
    static func power(_ samples: ArraySlice<Int16>, frequency: Double) -> Double {
        let coefficient = 2 * cos(2 * .pi * frequency / 16000)
        var (s1, s2) = (0.0, 0.0)
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        return (s1 * s1 + s2 * s2 - coefficient * s1 * s2) / Double(max(samples.count, 1))
    }

    @Test(.needsAudioRig, arguments: [["--raw"], []])
    func recordsTheDefaultSourceToA16kMonoWAV(extra: [String]) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Longer than the test needs (it is killed after): the binary may be slow to start recording.
        let player = try Self.playTone(seconds: 30)
        defer { Self.kill(player) }
        try await Task.sleep(for: .milliseconds(500))
        let out = scratch.path("out.wav")
        let result = try await ClawTalkBinary.run(
            ["record", "--seconds", "1", out] + extra, environment: scratch.home.environment)
        #expect(result.status == 0, "\(result.error)")
        let samples = try Self.readWAV(out)
        #expect(samples.count == 16000)
        let tone = Self.power(samples[...], frequency: 1000)
        let other = Self.power(samples[...], frequency: 2500)
        let level = 10 * log10(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)) - 90.3
        print(
            "record \(extra): tone level \(String(format: "%.1f", level)) dBFS; stderr: \(result.error.debugDescription)"
        )
        #expect(tone > 1000 * other, "no 1 kHz tone in the recording")
        #expect(level > -12 && level < -6, "recorded level \(level) dBFS for a −9 dBFS tone")
        #expect(!result.error.contains("\r"))
        let lines = result.error.split(separator: "\n")
        #expect(lines.count == 1 && lines.allSatisfy { $0.hasPrefix("[") && $0.hasSuffix("/1.0 s") })
        #expect(result.output.hasPrefix("Recorded 1.00 s to \(out) (16000 Hz mono, peak "))
    }

    @Test(.needsAudioRig)
    func anUnknownDeviceListsTheSources() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try await ClawTalkBinary.run(
            ["record", "--mic-device", "no-such-mic", scratch.path("out.wav")], environment: scratch.home.environment)
        #expect(result.status == 69)
        #expect(result.error.hasPrefix("Error: no capture device named 'no-such-mic'; available sources: "))
        #expect(result.error.contains("vmic"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.wav")))
    }

    @Test(.needsAudioRig)
    func ctrlCStopsEarlyAndStillWritesTheFile() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let out = scratch.path("out.wav")
        let process = try ClawTalkBinary.process(
            ["record", "--seconds", "30", "--raw", out], environment: scratch.home.environment)
        let stdout = scratch.directory.appendingPathComponent("stdout.txt")
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        let meter = scratch.directory.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: meter.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: meter)
        try process.run()
        // Interrupt once it records (its meter printed the first second; a busy machine may be slow
        // to start it), so that SIGINT meets the handler rather than the default action.
        let recording = Date().addingTimeInterval(30)
        while process.isRunning, Date() < recording,
            !((try? String(contentsOf: meter, encoding: .utf8)) ?? "").contains("/30.0 s")
        {
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.interrupt()
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let finished = !process.isRunning
        Self.kill(process)
        #expect(finished, "record did not stop on SIGINT")
        #expect(process.terminationStatus == 0)
        let samples = try Self.readWAV(out)
        #expect(samples.count > 4000 && samples.count < 16000 * 30, "\(samples.count) samples: less than the 30 s")
        let text = try String(contentsOf: stdout, encoding: .utf8)
        #expect(text.contains("stopped early"))
    }
}
