import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import Foundation
import Synchronization

/// Helpers for capture tests on the audio rig: `pactl` module loading and playback threads.
enum Pactl {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `pactl arguments…` (or another PulseAudio tool) and returns its trimmed standard output.
    @discardableResult
    static func run(_ arguments: [String], tool: String = "pactl") throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errorData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")): \(message)")
        }
        return text
    }

    /// Loads a 16 kHz mono null sink called `name` and returns its module index.
    static func loadNullSink(_ name: String) throws -> Int {
        let output = try run([
            "load-module", "module-null-sink", "sink_name=\(name)", "rate=16000", "channels=1",
            "sink_properties=device.description=\(name)",
        ])
        guard let index = Int(output) else { throw Failure(description: "unexpected module index '\(output)'") }
        return index
    }

    /// Loads a 16 kHz mono null source (clocked silence, data at once) called `name`; returns its
    /// module index. pipewire-pulse has no `module-null-source`: there a null sink made a virtual
    /// source is the same device.
    static func loadNullSource(_ name: String) throws -> Int {
        let arguments =
            switch RigServer.current {
            case .pulseAudio:
                ["module-null-source", "source_name=\(name)", "rate=16000", "channels=1", "description=\(name)"]
            case .pipeWire:
                [
                    "module-null-sink", "media.class=Audio/Source/Virtual", "sink_name=\(name)", "rate=16000",
                    "channels=1", "sink_properties=device.description=\(name)",
                ]
            }
        let output = try run(["load-module"] + arguments)
        guard let index = Int(output) else { throw Failure(description: "unexpected module index '\(output)'") }
        return index
    }

    /// The index of the record stream whose media name is `streamName`, if one exists.
    static func sourceOutput(named streamName: String) throws -> Int? {
        let listing = try run(["list", "source-outputs"])
        var current: Int?
        for line in listing.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("Source Output #") {
                current = Int(text.dropFirst("Source Output #".count))
            } else if text == "media.name = \"\(streamName)\"" {
                return current
            }
        }
        return nil
    }

    /// Kills record stream `index` as the server would on a fatal error. pactl cannot do this, so
    /// on PulseAudio the CLI protocol module is loaded for `pacmd` and unloaded again; on PipeWire
    /// the stream's node (its `object.id`; the index is its serial) is destroyed with `pw-cli`.
    static func killSourceOutput(_ index: Int) throws {
        switch RigServer.current {
        case .pulseAudio:
            let cli = try run(["load-module", "module-cli-protocol-unix"])
            defer { if let module = Int(cli) { unload(module) } }
            try run(["kill-source-output", "\(index)"], tool: "pacmd")
        case .pipeWire:
            guard let node = try property("object.id", ofSourceOutput: index) else {
                throw Failure(description: "source output #\(index) has no object.id")
            }
            try run(["destroy", node], tool: "pw-cli")
        }
    }

    /// The value of property `key` of record stream `index` in `pactl list source-outputs`.
    static func property(_ key: String, ofSourceOutput index: Int) throws -> String? {
        var inStream = false
        for line in try run(["list", "source-outputs"]).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("Source Output #") {
                inStream = text == "Source Output #\(index)"
            } else if inStream, text.hasPrefix("\(key) = \"") {
                return String(text.dropFirst(key.count + 4).dropLast())
            }
        }
        return nil
    }

    /// Unloads module `index`, ignoring errors (for cleanup).
    static func unload(_ index: Int) {
        _ = try? run(["unload-module", "\(index)"])
    }
}

/// Plays to a sink on its own thread: either `samples` once, or a repeating frame until stopped
/// or until the sink goes away (a keep-alive that also clocks the sink's monitor).
final class SinkPlayer: Sendable {
    private final class Shared: Sendable {
        let stop = Atomic<Bool>(false)
        let finished = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
    }

    private let shared = Shared()

    /// Starts playing `frame` (320 samples) to `sink` over and over; call ``stop()`` when done.
    init(looping frame: [Int16], to sink: String) {
        let shared = self.shared
        let thread = Thread {
            defer { shared.finished.signal() }
            do {
                let stream = try PulsePlaybackStream(format: .speech, device: sink, targetLatencyMilliseconds: 40)
                defer { stream.close() }
                while !shared.stop.load(ordering: .relaxed) {
                    try stream.write(frame)
                }
            } catch {
                shared.failure.locked { $0 = "\(error)" }
            }
        }
        thread.start()
    }

    /// Stops the loop and waits for the thread (at most one write, ~40 ms).
    func stop() {
        shared.stop.store(true, ordering: .relaxed)
        _ = shared.finished.wait(timeout: .now() + 2)
    }

    /// Why the loop ended early (e.g. the sink was unloaded), if it did.
    var error: String? { shared.failure.locked { $0 } }

    /// Plays `samples` once to `sink` in 20 ms writes, drains, and returns when it has played.
    /// The 400 ms buffer lets this thread be late by that much without the stream underrunning
    /// (an underrun would insert silence into the signal on a loaded test machine).
    static func play(_ samples: [Int16], to sink: String) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                do {
                    let stream = try PulsePlaybackStream(format: .speech, device: sink, targetLatencyMilliseconds: 400)
                    defer { stream.close() }
                    try samples.withUnsafeBufferPointer { all in
                        for start in stride(from: 0, to: all.count, by: 320) {
                            try stream.write(UnsafeBufferPointer(rebasing: all[start..<min(start + 320, all.count)]))
                        }
                    }
                    try stream.drain()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.start()
        }
    }
}
