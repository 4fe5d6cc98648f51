public import ClawTalkSupport
import Foundation
import Synchronization

/// A local `wyoming-faster-whisper` server run as a child process: supervised by `clawtalk run`
/// (``SpeechServerSupervisor``), and started by tests and `clawtalk transcribe --start-server`.
///
/// ``start(_:onOutput:)`` launches it on its ``Configuration/address`` (a Unix socket, or a loopback port)
/// and returns once it answers `describe`.
/// The server loads the model before it listens (≈ 2–5 s for Whisper base on 2 cores), so a
/// ready server transcribes at full speed from the first request. It never downloads: the model
/// is a directory made by `scripts/fetch-whisper-model`, and `--local-files-only` plus
/// `HF_HUB_OFFLINE=1` keep it that way. The child is a ``ChildProcess``: its own process group,
/// killed with this process however this process ends; its output lines go to `onOutput` and the
/// last ones into start errors.
public final class WyomingServerProcess: Sendable {
    /// What to run and how.
    public struct Configuration: Sendable, Hashable {
        /// Which server program it is.
        public enum Program: String, Sendable, Hashable {
            /// `wyoming-faster-whisper`: speech-to-text.
            case fasterWhisper = "wyoming-faster-whisper"
            /// `clawtalk-wake`: the Whisper keyword scorer (`python/clawtalk_wake.py`).
            case clawtalkWake = "clawtalk-wake"
            /// `clawtalk-speech`: clawtalk's own speech server (`python/clawtalk_speech.py`):
            /// speech-to-text with Whisper's window cut to the audio, the end-of-turn verdict,
            /// cancelling requests nobody waits for, and the keyword scorer, in one process.
            case clawtalkSpeech = "clawtalk-speech"

            /// Whether a server that described itself as `info` can stand in for this program:
            /// any speech-to-text server for `wyoming-faster-whisper`, only `clawtalk-wake` itself
            /// for the keyword scorer (another wake service cannot score arbitrary triggers).
            public func isOffered(by info: WyomingInfo) -> Bool {
                switch self {
                case .fasterWhisper, .clawtalkSpeech: !info.asr.isEmpty
                case .clawtalkWake: info.wake.contains { $0.name == rawValue }
                }
            }
        }

        /// Which program ``executable`` is (it decides the arguments).
        public var program: Program = .fasterWhisper
        /// The server's executable.
        public var executable: String
        /// The faster-whisper (CTranslate2) model directory.
        public var modelDirectory: String
        /// `clawtalk-speech`: the keyword scorer's model directory (Whisper tiny.en).
        public var wakeModelDirectory: String?
        /// `clawtalk-speech`: a multilingual Whisper for languages other than English when
        /// ``modelDirectory`` is English-only; loaded by the server when first needed, passed
        /// when the directory holds a model.
        public var multilingualModelDirectory: String?
        /// `clawtalk-speech`: the end-of-turn model (Smart Turn ONNX); used when the file exists.
        public var turnModel: String?
        /// Where it listens: a Unix socket (what `clawtalk run` gives its own servers) or a port
        /// on 127.0.0.1; nil picks a free loopback port (tests, benches, `clawtalk transcribe`).
        public var address: WyomingAddress?
        /// Default language (`--language`); nil lets Whisper detect it.
        public var language: String?
        /// Whisper initial prompt (`--initial-prompt`); nil for none.
        public var initialPrompt: String?
        /// Inference threads (`--cpu-threads`); the initializer's nil means one per processor.
        public var cpuThreads: Int
        /// Limit for the server to load its model and answer `describe`.
        public var readyTimeout: Duration
        /// How much nicer than this process the server runs (the `clawtalk-stt` unit's `Nice=5`).
        public var niceIncrement: Int32 = 0
        /// Python logging format of the server's output (`--log-format`); nil for its default.
        public var logFormat: String?
        /// Variables set for the server on top of this process's environment.
        public var environment: [String: String] = [:]

        /// Creates a configuration.
        public init(
            executable: String, modelDirectory: String, address: WyomingAddress? = nil, language: String? = "en",
            initialPrompt: String? = WyomingTranscriber.defaultServerPrompt,
            cpuThreads: Int? = nil, readyTimeout: Duration = .seconds(90)
        ) {
            self.executable = executable
            self.modelDirectory = modelDirectory
            self.address = address
            self.language = language
            self.initialPrompt = initialPrompt
            self.cpuThreads = max(1, cpuThreads ?? ProcessInfo.processInfo.activeProcessorCount)
            self.readyTimeout = readyTimeout
        }

        /// The speech-to-text server `scripts/setup` installs: `clawtalk-speech` when it is
        /// there (with `models/whisper-tiny-en`, `models/whisper-base` and
        /// `models/smart-turn-v3.2`), else `wyoming-faster-whisper` with `models/whisper-base`.
        public static func installed(paths: XDGPaths = XDGPaths(), model: STTModel = .tinyEn) -> Configuration {
            let speech = installedSpeechServer(paths: paths, model: model)
            if FileManager.default.isExecutableFile(atPath: speech.executable) { return speech }
            return Configuration(
                executable: paths.dataDirectory + "/venv/bin/wyoming-faster-whisper",
                modelDirectory: paths.dataDirectory + "/models/whisper-base")
        }

        /// `<data>/clawtalk/venv/bin/clawtalk-speech` with its models. With `model` tiny.en
        /// (the default), one Whisper tiny.en transcribes English and scores wake words, and
        /// Whisper base is the multilingual model the server loads for another language.
        public static func installedSpeechServer(paths: XDGPaths = XDGPaths(), model: STTModel = .tinyEn)
            -> Configuration
        {
            let tiny = paths.dataDirectory + "/models/whisper-tiny-en"
            let base = paths.dataDirectory + "/models/whisper-base"
            var configuration = Configuration(
                executable: paths.dataDirectory + "/venv/bin/clawtalk-speech",
                modelDirectory: model == .tinyEn ? tiny : base, language: "en", initialPrompt: nil)
            configuration.program = .clawtalkSpeech
            if model == .tinyEn { configuration.multilingualModelDirectory = base }
            // Inference threads sleep when their work is done instead of spinning (libgomp's
            // default), so a spare thread costs no CPU between the scorer's passes.
            configuration.environment["OMP_WAIT_POLICY"] = "PASSIVE"
            // glibc's per-thread arenas hold tens of MB the one worker thread frees (measured:
            // 297 → 287 MB idle, 335 → 309 MB after 20 requests with one arena).
            configuration.environment["MALLOC_ARENA_MAX"] = "1"
            // Not a fixed MALLOC_MMAP_THRESHOLD_: it saved 12 MB after a turn but made every
            // request 190 ms slower (each large tensor mapped and faulted in anew).
            configuration.wakeModelDirectory = tiny
            configuration.turnModel = paths.dataDirectory + "/models/smart-turn-v3.2/smart-turn-v3.2-cpu.onnx"
            return configuration
        }

        /// The `clawtalk-wake` keyword scorer that `scripts/setup` installs:
        /// `<data>/clawtalk/venv/bin/clawtalk-wake` with `<data>/clawtalk/models/whisper-tiny-en`
        /// (`scripts/fetch-wake-model`), one inference thread.
        public static func installedWakeScorer(paths: XDGPaths = XDGPaths()) -> Configuration {
            var configuration = Configuration(
                executable: paths.dataDirectory + "/venv/bin/clawtalk-wake",
                modelDirectory: paths.dataDirectory + "/models/whisper-tiny-en", language: nil, initialPrompt: nil,
                cpuThreads: 1, readyTimeout: .seconds(60))
            configuration.program = .clawtalkWake
            return configuration
        }

        /// Why this server cannot be started (executable or model missing), nil when it can.
        public var notInstalledReason: String? {
            guard FileManager.default.isExecutableFile(atPath: executable) else {
                return "\(executable) is not installed (run \(SpeechSetup.command()))"
            }
            guard hasModel else { return "no Whisper model in \(modelDirectory) (run \(modelScript))" }
            if let wakeModelDirectory, !FileManager.default.fileExists(atPath: wakeModelDirectory + "/model.bin") {
                return
                    "no Whisper model in \(wakeModelDirectory) (run \(SpeechSetup.command(inSourceTree: "scripts/fetch-wake-model")))"
            }
            return nil
        }

        /// The script that installs the model.
        var modelScript: String {
            SpeechSetup.command(
                inSourceTree: program == .clawtalkWake ? "scripts/fetch-wake-model" : "scripts/fetch-whisper-model")
        }

        /// Whether the model directory holds a `model.bin`.
        public var hasModel: Bool {
            FileManager.default.fileExists(atPath: modelDirectory + "/model.bin")
        }

        /// The server's command-line arguments for listening at `address`.
        public func arguments(address: WyomingAddress) -> [String] {
            if program == .clawtalkSpeech {
                var arguments = [
                    "--uri", address.uri, "--asr-model", modelDirectory, "--threads", String(cpuThreads),
                ]
                if let wakeModelDirectory { arguments += ["--wake-model", wakeModelDirectory] }
                if let multilingualModelDirectory,
                    FileManager.default.fileExists(atPath: multilingualModelDirectory + "/model.bin")
                {
                    arguments += ["--multilingual-model", multilingualModelDirectory]
                }
                if let turnModel, FileManager.default.fileExists(atPath: turnModel) {
                    arguments += ["--turn-model", turnModel]
                }
                if let language { arguments += ["--language", language] }
                if let initialPrompt { arguments += ["--initial-prompt", initialPrompt] }
                if let logFormat { arguments += ["--log-format", logFormat] }
                return arguments
            }
            if program == .clawtalkWake {
                var arguments = [
                    "--uri", address.uri, "--model", modelDirectory, "--threads", String(cpuThreads),
                ]
                if let logFormat { arguments += ["--log-format", logFormat] }
                return arguments
            }
            var arguments = [
                "--uri", address.uri, "--model", modelDirectory,
                "--data-dir", (modelDirectory as NSString).deletingLastPathComponent,
                "--stt-library", "faster-whisper", "--local-files-only", "--device", "cpu",
                "--compute-type", "int8", "--cpu-threads", String(cpuThreads),
            ]
            if let language { arguments += ["--language", language] }
            if let initialPrompt { arguments += ["--initial-prompt", initialPrompt] }
            if let logFormat { arguments += ["--log-format", logFormat] }
            return arguments
        }
    }

    /// Where the server listens.
    public let address: WyomingAddress
    /// The server's process id.
    public let processIdentifier: Int32
    /// What the server said about itself when it became ready.
    public let info: WyomingInfo
    /// How long it took from launch to the first `describe` answer.
    public let startupTime: Duration
    /// What was launched.
    public let configuration: Configuration
    private let child: ChildProcess
    private let stopped = Mutex(false)

    private init(
        configuration: Configuration, address: WyomingAddress, child: ChildProcess, info: WyomingInfo,
        startupTime: Duration
    ) {
        self.configuration = configuration
        self.address = address
        processIdentifier = child.pid
        self.child = child
        self.info = info
        self.startupTime = startupTime
    }

    deinit {
        stop()
    }

    /// A transcriber configuration for this server (its initial prompt as the server prompt).
    public var transcriberConfiguration: WyomingTranscriber.Configuration {
        WyomingTranscriber.Configuration(address: address, serverPrompt: configuration.initialPrompt)
    }

    /// Launches the server and waits until it answers `describe`; `onOutput` gets each line the
    /// server writes (on another thread). Throws ``SpeechError/sttServerStart(_:)`` when the
    /// executable or model is missing, the address is taken, the process exits early (with its last
    /// lines), or it is not ready within the timeout; `CancellationError` when cancelled first
    /// (the child is stopped).
    public static func start(
        _ configuration: Configuration, onOutput: (@Sendable (String) -> Void)? = nil
    ) async throws -> WyomingServerProcess {
        guard FileManager.default.isExecutableFile(atPath: configuration.executable) else {
            throw SpeechError.sttServerStart(
                "\(configuration.executable) is not installed (run \(SpeechSetup.command()) to create the venv)")
        }
        guard configuration.hasModel else {
            throw SpeechError.sttServerStart(
                "no Whisper model in \(configuration.modelDirectory) (run \(configuration.modelScript))")
        }
        let address: WyomingAddress
        do {
            address = try configuration.address ?? .tcp(host: "127.0.0.1", port: LoopbackPort.pick())
        } catch {
            throw SpeechError.sttServerStart("\(error)")
        }
        if let path = address.socketPath, path.utf8.count > WyomingAddress.maximumSocketPathBytes {
            throw SpeechError.sttServerStart(
                "\(path) is longer than the \(WyomingAddress.maximumSocketPathBytes) bytes a Unix socket path may have")
        }
        let client = WyomingClient(address: address, connectTimeout: .seconds(1))
        // A server already on the port would answer for the new one, which then fails to bind; on
        // a socket, the new one would take the path from the old one (which belongs to another
        // process of this user: a second node on the same runtime directory).
        if (try? await client.describe(timeout: .milliseconds(500))) != nil {
            throw SpeechError.sttServerStart("\(address) is already taken by a Wyoming server")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HF_HUB_OFFLINE"] = "1"
        environment.merge(configuration.environment) { _, set in set }
        let launched = ContinuousClock.now
        let child = try ChildProcess(
            executable: configuration.executable, arguments: configuration.arguments(address: address),
            environment: environment.map { "\($0.key)=\($0.value)" }, niceIncrement: configuration.niceIncrement,
            onOutput: onOutput)
        let deadline = launched + configuration.readyTimeout
        while true {
            if let exit = child.exitStatus {
                throw SpeechError.sttServerStart("the server exited (\(exit)) before it was ready: \(tail(child))")
            }
            if let info = try? await client.describe(timeout: .seconds(1)) {
                return WyomingServerProcess(
                    configuration: configuration, address: address, child: child, info: info,
                    startupTime: launched.duration(to: .now))
            }
            if Task.isCancelled {
                await stopInBackground(child)
                throw CancellationError()
            }
            if ContinuousClock.now >= deadline {
                await stopInBackground(child)
                throw SpeechError.sttServerStart(
                    "not ready within \(SpeechError.secondsText(configuration.readyTimeout.inSeconds)): \(tail(child))")
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Stops the server (SIGTERM to its process group, then SIGKILL after `grace`); idempotent.
    /// Blocks the calling thread until it is reaped: see ``stopAndWait(grace:)``.
    public func stop(grace: Duration = .seconds(2)) {
        let first = stopped.locked { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        child.terminate(grace: grace)
    }

    /// ``stop(grace:)`` on a thread of its own, awaited without holding a pool thread; returns
    /// early when the caller is cancelled (the stop goes on).
    public func stopAndWait(grace: Duration = .seconds(2)) async {
        _ = try? await awaitBlocking("clawtalk-stt-stop") { [self] in stop(grace: grace) }
    }

    /// Waits until the server process exits by itself and returns how; nil when cancelled first.
    public func exited() async -> ProcessExit? { await child.exited() }

    /// The server's last output lines.
    public var recentOutput: [String] { child.recentOutput }

    /// Whether the server process is still running.
    public var isRunning: Bool { child.isRunning }

    // MARK: - Private

    /// The last output lines, on one line.
    static func tail(_ child: ChildProcess) -> String {
        let lines = child.recentOutput.suffix(3)
        return lines.isEmpty ? "no output" : lines.joined(separator: " | ")
    }

    /// Stops a child that never became ready, off the pool.
    private static func stopInBackground(_ child: ChildProcess) async {
        _ = try? await awaitBlocking("clawtalk-stt-stop") { child.terminate(grace: .seconds(2)) }
    }
}
