public import ClawTalkSupport
import Foundation
import Synchronization

/// A local `wyoming-faster-whisper` server run as a child process: for tests, and for
/// `clawtalk transcribe --start-server` when the `clawtalk-stt` service is not running.
///
/// ``start(_:)`` launches it on a loopback port and returns once it answers `describe`. The
/// server loads the model before it listens (≈ 2–5 s for Whisper base on 2 cores), so a ready
/// server transcribes at full speed from the first request. It never downloads: the model is a
/// directory made by `scripts/fetch-whisper-model`, and `--local-files-only` plus
/// `HF_HUB_OFFLINE=1` keep it that way. Its output goes to a log file, deleted by ``stop()``.
/// The child starts with an empty signal mask (see ``ChildProcess``), so ``stop()`` ends it with
/// SIGTERM. A process killed before ``stop()`` leaves the server running (children are not tied
/// to their parent's life).
public final class WyomingServerProcess: Sendable {
    /// What to run and how.
    public struct Configuration: Sendable, Hashable {
        /// The `wyoming-faster-whisper` executable.
        public var executable: String
        /// The faster-whisper (CTranslate2) model directory.
        public var modelDirectory: String
        /// Port on 127.0.0.1; nil picks a free one.
        public var port: Int?
        /// Default language (`--language`); nil lets Whisper detect it.
        public var language: String?
        /// Whisper initial prompt (`--initial-prompt`); nil for none.
        public var initialPrompt: String?
        /// Inference threads (`--cpu-threads`); the initializer's nil means one per processor.
        public var cpuThreads: Int
        /// Limit for the server to load its model and answer `describe`.
        public var readyTimeout: Duration

        /// Creates a configuration.
        public init(
            executable: String, modelDirectory: String, port: Int? = nil, language: String? = "en",
            initialPrompt: String? = WyomingTranscriber.defaultServerPrompt,
            cpuThreads: Int? = nil, readyTimeout: Duration = .seconds(90)
        ) {
            self.executable = executable
            self.modelDirectory = modelDirectory
            self.port = port
            self.language = language
            self.initialPrompt = initialPrompt
            self.cpuThreads = max(1, cpuThreads ?? ProcessInfo.processInfo.activeProcessorCount)
            self.readyTimeout = readyTimeout
        }

        /// The locations `scripts/setup` and `scripts/fetch-whisper-model` install to:
        /// `<data>/clawtalk/venv/bin/wyoming-faster-whisper` and `<data>/clawtalk/models/whisper-base`.
        public static func installed(paths: XDGPaths = XDGPaths()) -> Configuration {
            Configuration(
                executable: paths.dataDirectory + "/venv/bin/wyoming-faster-whisper",
                modelDirectory: paths.dataDirectory + "/models/whisper-base")
        }

        /// Whether the model directory holds a `model.bin`.
        public var hasModel: Bool {
            FileManager.default.fileExists(atPath: modelDirectory + "/model.bin")
        }

        /// The server's command-line arguments for `port`.
        public func arguments(port: Int) -> [String] {
            var arguments = [
                "--uri", "tcp://127.0.0.1:\(port)", "--model", modelDirectory,
                "--data-dir", (modelDirectory as NSString).deletingLastPathComponent,
                "--stt-library", "faster-whisper", "--local-files-only", "--device", "cpu",
                "--compute-type", "int8", "--cpu-threads", String(cpuThreads),
            ]
            if let language { arguments += ["--language", language] }
            if let initialPrompt { arguments += ["--initial-prompt", initialPrompt] }
            return arguments
        }
    }

    /// Always `127.0.0.1`.
    public let host = "127.0.0.1"
    /// The port the server listens on.
    public let port: Int
    /// The server's process id.
    public let processIdentifier: Int32
    /// The file that receives the server's output.
    public let logFile: String
    /// What the server said about itself when it became ready.
    public let info: WyomingInfo
    /// How long it took from launch to the first `describe` answer.
    public let startupTime: Duration
    /// What was launched.
    public let configuration: Configuration
    private let child: ChildProcess
    private let stopped = Mutex(false)

    private init(
        configuration: Configuration, port: Int, child: ChildProcess, logFile: String, info: WyomingInfo,
        startupTime: Duration
    ) {
        self.configuration = configuration
        self.port = port
        processIdentifier = child.pid
        self.child = child
        self.logFile = logFile
        self.info = info
        self.startupTime = startupTime
    }

    deinit {
        stop()
    }

    /// A transcriber configuration for this server (its initial prompt as the server prompt).
    public var transcriberConfiguration: WyomingTranscriber.Configuration {
        WyomingTranscriber.Configuration(host: host, port: port, serverPrompt: configuration.initialPrompt)
    }

    /// Launches the server and waits until it answers `describe`. Throws
    /// ``SpeechError/sttServerStart(_:)`` when the executable or model is missing, the process
    /// exits early (with the end of its log), or it is not ready within the timeout.
    public static func start(_ configuration: Configuration) async throws -> WyomingServerProcess {
        guard FileManager.default.isExecutableFile(atPath: configuration.executable) else {
            throw SpeechError.sttServerStart(
                "\(configuration.executable) is not installed (run scripts/setup to create the venv)")
        }
        guard configuration.hasModel else {
            throw SpeechError.sttServerStart(
                "no Whisper model in \(configuration.modelDirectory) (run scripts/fetch-whisper-model)")
        }
        let port = try configuration.port ?? LoopbackPort.pick()
        let logFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("clawtalk-wyoming-\(port)-\(UUID().uuidString).log").path
        let client = WyomingClient(host: "127.0.0.1", port: port, connectTimeout: .seconds(1))
        // A server already on the port would answer for the new one, which then fails to bind.
        if (try? await client.describe(timeout: .milliseconds(500))) != nil {
            throw SpeechError.sttServerStart("127.0.0.1:\(port) is already taken by a Wyoming server")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HF_HUB_OFFLINE"] = "1"
        let launched = ContinuousClock.now
        let child = try ChildProcess(
            executable: configuration.executable, arguments: configuration.arguments(port: port),
            environment: environment.map { "\($0.key)=\($0.value)" }, outputPath: logFile)
        let deadline = launched + configuration.readyTimeout
        while true {
            if let exit = child.exitDescription {
                let tail = Self.tail(of: logFile)
                try? FileManager.default.removeItem(atPath: logFile)
                throw SpeechError.sttServerStart("the server exited (\(exit)) before it was ready: \(tail)")
            }
            if let info = try? await client.describe(timeout: .seconds(1)) {
                return WyomingServerProcess(
                    configuration: configuration, port: port, child: child, logFile: logFile, info: info,
                    startupTime: launched.duration(to: .now))
            }
            if ContinuousClock.now >= deadline || Task.isCancelled {
                child.terminate(grace: .seconds(3))
                let tail = Self.tail(of: logFile)
                try? FileManager.default.removeItem(atPath: logFile)
                if Task.isCancelled { throw CancellationError() }
                throw SpeechError.sttServerStart(
                    "not ready within \(SpeechError.secondsText(configuration.readyTimeout.inSeconds)): \(tail)")
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Stops the server (SIGTERM, then SIGKILL after 3 s) and deletes its log (idempotent).
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        child.terminate(grace: .seconds(3))
        try? FileManager.default.removeItem(atPath: logFile)
    }

    /// Whether the server process is still running.
    public var isRunning: Bool { child.isRunning }

    // MARK: - Private

    /// The last lines of the log, on one line.
    private static func tail(of path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").suffix(3).map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.isEmpty ? "no output" : lines.joined(separator: " | ")
    }
}
