import ClawTalkAudio
import ClawTalkDevices
import Foundation
import Synchronization
import Testing

/// Runs `pactl` against the test server and returns its trimmed standard output.
///
/// Output goes through files, not a Pipe (reading a Pipe while the child exits can hit EINTR).
func pactl(_ arguments: String...) throws -> String {
    let directory = FileManager.default.temporaryDirectory
    let out = directory.appendingPathComponent("ct-pactl-\(UUID().uuidString).out")
    let err = directory.appendingPathComponent("ct-pactl-\(UUID().uuidString).err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pactl"] + arguments
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    try process.run()
    process.waitUntilExit()
    let stdout = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
    guard process.terminationStatus == 0 else {
        let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        throw RigError(description: "pactl \(arguments.joined(separator: " ")) failed: \(stderr)")
    }
    return stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

struct RigError: Error, CustomStringConvertible {
    var description: String
}

/// A private null sink (16 kHz mono) for the playback tests, kept clocked by a silent stream.
///
/// Other suites play to and capture from the rig's shared `vspk`/`vmic` in parallel, so the
/// playback tests use a sink of their own: what its monitor hears is only what these tests play,
/// and none of it reaches `vmic`. A fresh null sink renders in 2 s blocks until a stream asks for
/// low latency, so the sink is warmed up once per suite (about 2 s), not per test.
final class PlaybackTestSink: Sendable {
    /// The sink of the running suite.
    @TaskLocal static var current: PlaybackTestSink?

    let name: String
    private let module: String
    private let running = Atomic<Bool>(true)
    private let stopped = DispatchSemaphore(value: 0)

    /// The monitor source: everything played to the sink.
    var monitor: String { "\(name).monitor" }

    init() throws {
        name = "ctpb\(getpid())x\(UInt32.random(in: 0...UInt32.max))"
        module = try pactl(
            "load-module", "module-null-sink", "sink_name=\(name)", "rate=16000", "channels=1",
            "sink_properties=device.description=PlaybackTestSpeaker")
        let keepalive: PulsePlaybackStream
        do {
            keepalive = try PulsePlaybackStream(format: .speech, device: name, targetLatencyMilliseconds: 20)
        } catch {
            _ = try? pactl("unload-module", module)
            throw error
        }
        let silence = [Int16](repeating: 0, count: 160)
        Thread { [self] in
            while running.load(ordering: .relaxed) {
                do { try keepalive.write(silence) } catch { break }
            }
            keepalive.close()
            stopped.signal()
        }.start()
        // Warm-up: block until the monitor delivers (the first block can take ~2 s).
        do {
            let warm = try PulseCaptureStream(format: .speech, device: monitor, fragmentMilliseconds: 10)
            var frame = [Int16](repeating: 0, count: 1600)
            try frame.withUnsafeMutableBufferPointer { try warm.read(into: $0) }
            warm.close()
        } catch {
            close()
            throw error
        }
    }

    /// Loads a remap sink called `name` on top of this sink; returns the module id to unload.
    func loadRemap(named name: String) throws -> String {
        try pactl("load-module", "module-remap-sink", "sink_name=\(name)", "master=\(self.name)")
    }

    /// Stops the silent stream and unloads the sink.
    func close() {
        running.store(false, ordering: .relaxed)
        stopped.wait()
        _ = try? pactl("unload-module", module)
    }
}

/// Gives the playback suite its own ``PlaybackTestSink`` for the whole run.
struct PrivateSinkTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let sink = try PlaybackTestSink()
        defer { sink.close() }
        try await PlaybackTestSink.$current.withValue(sink) { try await function() }
    }
}

extension Trait where Self == PrivateSinkTrait {
    /// A private null sink for the suite (see ``PlaybackTestSink``).
    static var privatePlaybackSink: Self { PrivateSinkTrait() }
}

/// Captures a source at 16 kHz mono on its own thread, noting when each 10 ms read returned and
/// the stream latency then, so sample positions map to monotonic instants.
// @unchecked Sendable: `samples`, `marks` and `failure` are written only by the capture thread
// until `stop()` has waited for it to end; the stream is used only by that thread.
final class MonitorRecorder: @unchecked Sendable {
    private struct Mark {
        var endSample: Int
        var readAt: ContinuousClock.Instant
        var latencyMicroseconds: UInt64
    }

    private let stream: PulseCaptureStream
    private var samples: [Int16]
    private var marks: [Mark] = []
    private var failure: (any Error)?
    private let running = Atomic<Bool>(true)
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Opens `source` and starts capturing (returns once the first 10 ms have been read).
    init(source: String, maximumSeconds: Double = 6) throws {
        stream = try PulseCaptureStream(format: .speech, device: source, fragmentMilliseconds: 10)
        samples = [Int16](repeating: 0, count: Int(maximumSeconds * 16000))
        marks.reserveCapacity(Int(maximumSeconds * 100) + 1)
        Thread { [self] in capture() }.start()
        started.wait()
    }

    private func capture() {
        let chunk = 160
        var offset = 0
        samples.withUnsafeMutableBufferPointer { all in
            while running.load(ordering: .relaxed), offset + chunk <= all.count {
                do {
                    try stream.read(into: UnsafeMutableBufferPointer(rebasing: all[offset..<(offset + chunk)]))
                    let now = ContinuousClock.now
                    offset += chunk
                    marks.append(
                        Mark(endSample: offset, readAt: now, latencyMicroseconds: try stream.latencyMicroseconds()))
                } catch {
                    failure = error
                    break
                }
                if offset == chunk { started.signal() }
            }
        }
        if offset < chunk { started.signal() }
        samples.removeLast(samples.count - offset)
        stream.close()
        finished.signal()
    }

    /// Ends the capture and returns what was heard.
    func stop() throws -> Recording {
        running.store(false, ordering: .relaxed)
        finished.wait()
        if let failure { throw failure }
        // Sample i entered the source at (read time - latency) - (samples after i in that read).
        let offsets = marks.map { mark in
            let behind = Duration.microseconds(Int64(mark.latencyMicroseconds))
            return (mark.readAt - behind) - Duration.seconds(Double(mark.endSample) / 16000)
        }.sorted()
        let origin = offsets.isEmpty ? ContinuousClock.now : offsets[offsets.count / 2]
        return Recording(samples: samples, origin: origin)
    }
}

/// 16 kHz mono capture with the instant of its first sample.
struct Recording {
    var samples: [Int16]
    var origin: ContinuousClock.Instant

    /// When sample `index` was heard.
    func instant(ofSample index: Int) -> ContinuousClock.Instant {
        origin + .seconds(Double(index) / 16000)
    }

    /// Goertzel power at `frequency` in consecutive 10 ms windows (160 samples).
    func windows(_ frequency: Double) -> [Double] {
        stride(from: 0, to: samples.count - 159, by: 160).map {
            TestSignals.goertzel(samples[$0..<($0 + 160)], frequency: frequency, sampleRate: 16000)
        }
    }

    /// Indices of the 10 ms windows where `frequency` carries at least a tenth of the power of a
    /// sine with `amplitude` (full scale 1.0).
    /// The most consecutive window indices in `windows` (ascending).
    static func longestRun(_ windows: [Int]) -> Int {
        var (best, run, previous) = (0, 0, Int.min)
        for window in windows {
            run = window == previous + 1 ? run + 1 : 1
            best = max(best, run)
            previous = window
        }
        return best
    }

    func windowsWithTone(_ frequency: Double, amplitude: Double) -> [Int] {
        let full = amplitude * 32767
        let expected = full * full * 160 / 4
        return windows(frequency).enumerated().filter { $0.element > expected / 10 }.map(\.offset)
    }

    /// First and last sample (inclusive) of the span where the signal exceeds half of
    /// `amplitude`, at 1 ms resolution; nil if it never does.
    func loudSpan(amplitude: Double) -> (first: Int, last: Int)? {
        let threshold = Int(amplitude * 32767 / 2)
        let loud = stride(from: 0, to: samples.count - 15, by: 16).filter { start in
            samples[start..<(start + 16)].contains { abs(Int($0)) > threshold }
        }
        guard let first = loud.first, let last = loud.last else { return nil }
        return (first, last + 15)
    }
}

/// A sine as a 16-bit buffer at `sampleRate`.
func toneBuffer(_ frequency: Double, seconds: Double, sampleRate: Int = 24000, amplitude: Double = 0.3) -> PCMBuffer {
    PCMBuffer(
        format: AudioFormat(sampleRate: sampleRate),
        samples: TestSignals.tone(frequency: frequency, seconds: seconds, sampleRate: sampleRate, amplitude: amplitude))
}

/// Seconds of a duration as a Double.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}
