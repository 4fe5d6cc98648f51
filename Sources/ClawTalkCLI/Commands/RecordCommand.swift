import ClawTalkAudio
public import ClawTalkCommand
import ClawTalkDevices
import ClawTalkSupport
import Foundation
import Synchronization

/// `clawtalk record`: captures the microphone to a 16 kHz mono WAV file with a live level meter.
public struct RecordCommand: Command {
    /// The command name.
    public static let name = "record"
    /// One line for OVERVIEW.
    public static let abstract = "Record the microphone to a WAV file, with a live level meter."
    /// What is recorded and how to stop.
    public static let discussion = """
        Records what the node hears: 16 kHz mono, after echo cancellation, high-pass filter and \
        the noise suppression and gain control set in the config file (processing.*), or as \
        captured with --raw. A level meter runs on standard error; Ctrl-C stops early and still \
        writes the file.
        """
    /// Duration, device, processing and the output file.
    public static let options: [OptionSpec] = [
        .option(
            "seconds", valueName: "n", type: .double, help: "How long to record, 0.1 to 3600 seconds.", default: "5"),
        .option("mic-device", valueName: "name", help: "Sound server source to capture from (see 'clawtalk devices')."),
        .flag("raw", help: "Record the capture as is, without echo cancellation or other processing."),
        .positional("out.wav", help: "The WAV file to write (replaced if it exists)."),
    ]

    /// Shortest and longest recording in seconds.
    static let secondsRange = 0.1...3600.0

    /// `--seconds` (default 5).
    public var seconds: Double
    /// `--mic-device`.
    public var micDevice: String?
    /// `--raw`.
    public var raw: Bool
    /// The output path.
    public var output: String

    /// Reads the arguments.
    public init(parsed: ParsedArguments) {
        seconds = parsed.double("seconds") ?? 5
        micDevice = parsed.string("mic-device")
        raw = parsed.flag("raw")
        output = parsed.string("out.wav") ?? ""
    }

    /// The duration must be within 0.1…3600 s.
    public func validate() throws {
        guard Self.secondsRange.contains(seconds) else {
            throw CLIError.validationFailed("--seconds must be between 0.1 and 3600, not \(seconds).")
        }
    }

    /// Checks the output path, captures until the duration passes or Ctrl-C, writes the WAV file
    /// and prints its path, duration and peak level.
    public func run(context: CommandContext) async throws -> Int32 {
        let settings: Settings
        do {
            settings = try ConfigLoader(environment: context.environment).load().settings
        } catch {
            throw CLIError.validationFailed("configuration: \(error)")
        }
        let url = URL(fileURLWithPath: output)
        try Self.checkWritable(url)
        let target = Int((seconds * Double(AudioFormat.speech.sampleRate)).rounded())
        var configuration = CaptureConfiguration(source: micDevice ?? settings.mic.device)
        configuration.streamBufferFrames = 250
        let engine = CaptureEngine(configuration: configuration, backend: PulseCaptureBackend(pacedReads: true))
        var frontEnd: AudioFrontEnd?
        if !raw {
            var processing = FrontEndSettings(processing: settings.processing, mic: settings.mic)
            processing.streamBufferFrames = 250
            frontEnd = try AudioFrontEnd(settings: processing)
        }
        let rawFrames = raw ? engine.frames() : nil
        let processed = frontEnd?.frames()
        if let frontEnd { try frontEnd.start(on: engine) }
        do {
            try engine.start()
        } catch {
            frontEnd?.stop()
            throw Self.deviceError(error)
        }
        let interrupt = InterruptFlag.install()
        // A signal also ends a recording whose device delivers nothing: stopping the engine
        // finishes the streams the loop below waits on.
        let watcher = Task.detached { [frontEnd] in
            while !Task.isCancelled, !InterruptFlag.isSet { try? await Task.sleep(for: .milliseconds(50)) }
            guard InterruptFlag.isSet else { return }
            engine.stop()
            frontEnd?.stop()
        }
        defer { watcher.cancel() }
        var meter = Meter(isTerminal: isatty(STDERR_FILENO) == 1, totalSeconds: Double(target) / 16000)
        let samples: [Int16]
        if let processed {
            samples = await Self.collect(processed.map(\.clean), target: target, meter: &meter, io: context.io)
        } else if let rawFrames {
            samples = await Self.collect(rawFrames.map(\.samples), target: target, meter: &meter, io: context.io)
        } else {
            samples = []
        }
        engine.stop()
        frontEnd?.stop()
        let interrupted = interrupt.restore()
        context.io.writeError(meter.finish(elapsed: Double(samples.count) / 16000))
        do {
            try WAVFile.encode(PCMBuffer(format: .speech, samples: samples)).write(to: url)
        } catch {
            throw RecordError.unwritable(path: output, reason: error.localizedDescription)
        }
        let peak = LevelMeter.dBFS(LevelMeter.peak(samples))
        context.io.writeOutput(
            "Recorded \(String(format: "%.2f", Double(samples.count) / 16000)) s to \(url.path) "
                + "(16000 Hz mono, peak \(String(format: "%.1f", peak)) dBFS\(interrupted ? ", stopped early" : "")).\n"
        )
        return ExitCode.success.rawValue
    }

    /// Appends frames until `target` samples, an interrupt, or the end of the stream; feeds the meter.
    private static func collect<Frames: AsyncSequence<[Int16], Never>>(
        _ frames: Frames, target: Int, meter: inout Meter, io: CommandIO
    ) async -> [Int16] {
        var samples: [Int16] = []
        samples.reserveCapacity(min(target, 60 * 16000))
        for await frame in frames {
            let take = min(frame.count, target - samples.count)
            samples.append(contentsOf: frame[0..<take])
            if let text = meter.add(frame[0..<take], elapsed: Double(samples.count) / 16000) { io.writeError(text) }
            if samples.count >= target || InterruptFlag.isSet { break }
        }
        return samples
    }

    /// Fails early (exit 1) when `url` cannot be written: a missing directory, a directory, no permission.
    static func checkWritable(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw RecordError.unwritable(path: url.path, reason: "it is a directory")
        }
        let parent = url.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RecordError.unwritable(path: url.path, reason: "no such directory '\(parent)'")
        }
        guard FileManager.default.isWritableFile(atPath: parent),
            !FileManager.default.fileExists(atPath: url.path) || FileManager.default.isWritableFile(atPath: url.path)
        else {
            throw RecordError.unwritable(path: url.path, reason: "permission denied")
        }
    }

    /// Maps capture start errors to the CLI's: no server and unknown devices are exit 69.
    static func deviceError(_ error: any Error) -> any Error {
        switch error {
        case AudioDeviceError.serverUnavailable(let reason):
            return CLIError.unavailable(
                "no sound server: \(reason) (is PulseAudio or pipewire-pulse running for this user?)")
        case AudioDeviceError.notFound(let name, let available):
            let list = available.isEmpty ? "none" : available.joined(separator: ", ")
            return CLIError.unavailable(
                "no capture device named '\(name)'; available sources: \(list) (see 'clawtalk devices')")
        default:
            return error
        }
    }
}

extension RecordCommand {
    /// The live level meter on standard error: on a terminal one line redrawn with `\r` about 10
    /// times a second, otherwise one line per second (no redraw characters in logs).
    struct Meter {
        /// Cells in the bar; it spans −60…0 dBFS.
        static let width = 20
        let isTerminal: Bool
        let totalSeconds: Double
        private var lastReport = 0.0
        private var sumOfSquares = 0.0
        private var count = 0
        private var lastLevel = LevelMeter.silenceFloor
        private var pendingLine = false

        init(isTerminal: Bool, totalSeconds: Double) {
            self.isTerminal = isTerminal
            self.totalSeconds = totalSeconds
        }

        /// Seconds between two reports.
        var interval: Double { isTerminal ? 0.1 : 1.0 }

        /// Adds samples recorded up to `elapsed` seconds; returns text to write when a report is due.
        mutating func add(_ samples: ArraySlice<Int16>, elapsed: Double) -> String? {
            for sample in samples { sumOfSquares += Double(sample) * Double(sample) }
            count += samples.count
            pendingLine = true
            guard elapsed - lastReport >= interval - 1e-9 else { return nil }
            lastReport = elapsed
            return report(elapsed: elapsed)
        }

        /// The text that ends the meter: the final state, and a newline on a terminal.
        mutating func finish(elapsed: Double) -> String {
            if isTerminal { return (count > 0 ? report(elapsed: elapsed) : "\r" + line(elapsed: elapsed)) + "\n" }
            return pendingLine ? report(elapsed: elapsed) : ""
        }

        private mutating func report(elapsed: Double) -> String {
            if count > 0 { lastLevel = LevelMeter.dBFS((sumOfSquares / Double(count)).squareRoot() / 32768) }
            sumOfSquares = 0
            count = 0
            pendingLine = false
            return isTerminal ? "\r" + line(elapsed: elapsed) : line(elapsed: elapsed) + "\n"
        }

        /// `[#######-------------] -23.4 dBFS  2.3/5.0 s`.
        func line(elapsed: Double) -> String {
            Self.line(dBFS: lastLevel, elapsed: elapsed, total: totalSeconds)
        }

        /// The meter line for a level, elapsed and total time.
        static func line(dBFS: Double, elapsed: Double, total: Double) -> String {
            let cells = min(max(Int(((dBFS + 60) / 60 * Double(width)).rounded()), 0), width)
            let bar = String(repeating: "#", count: cells) + String(repeating: "-", count: width - cells)
            let level = String(format: "%6.1f", max(dBFS, -99.9))
            return "[\(bar)] \(level) dBFS  \(String(format: "%.1f/%.1f", elapsed, total)) s"
        }
    }

    /// SIGINT and SIGTERM set a flag the recording loop checks, so the file is still written.
    ///
    /// A plain `sigaction` handler (an atomic store is async-signal-safe) rather than a dispatch
    /// source: it also works when the signal arrives ignored from the parent (children inherit
    /// `SIG_IGN`), and the previous dispositions are put back afterwards.
    struct InterruptFlag {
        private static let flag = Atomic<Bool>(false)
        private var previous: [(Int32, sigaction)] = []

        /// True once SIGINT or SIGTERM arrived since ``install()``.
        static var isSet: Bool { flag.load(ordering: .relaxed) }

        /// Clears the flag and installs the handler for SIGINT and SIGTERM.
        static func install() -> InterruptFlag {
            flag.store(false, ordering: .relaxed)  // also initialises the global before any signal
            var installed = InterruptFlag()
            for number in [SIGINT, SIGTERM] {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { _ in InterruptFlag.flag.store(true, ordering: .relaxed) }
                sigemptyset(&action.sa_mask)
                var old = sigaction()
                if sigaction(number, &action, &old) == 0 { installed.previous.append((number, old)) }
            }
            return installed
        }

        /// Puts the previous handlers back; returns whether a signal arrived.
        func restore() -> Bool {
            for (number, old) in previous {
                var old = old
                sigaction(number, &old, nil)
            }
            return Self.isSet
        }
    }
}

/// Failures of `clawtalk record`, one line each (exit 1).
enum RecordError: Error, CustomStringConvertible {
    /// The output file cannot be written.
    case unwritable(path: String, reason: String)

    var description: String {
        switch self {
        case .unwritable(let path, let reason): "cannot write '\(path)': \(reason)"
        }
    }
}
