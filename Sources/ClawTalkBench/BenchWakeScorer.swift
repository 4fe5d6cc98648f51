import ClawTalkCLI
import ClawTalkNode
import ClawTalkSpeech
import ClawTalkSupport

/// The Whisper keyword scorer for `bench wake` and `bench all`: the one `clawtalk run` would use
/// (`wake.scorerHost:wake.scorerPort`) when it answers, else the installed `clawtalk-wake` started
/// for the bench on a free loopback port and stopped after it. Without either, the bench measures
/// what `run` would fall back to (PocketSphinx) and says so.
struct BenchWakeScorer {
    /// The scorer configuration to measure with, nil when none is available.
    var configuration: WhisperKeywordEngine.Configuration?
    /// The server started for the bench, if one was.
    var process: WyomingServerProcess?

    /// Finds or starts the scorer for `wake` under `selection`; `notice` gets one line about it.
    static func prepare(
        wake: WakeSettings, selection: KeywordSpotter.Selection, thresholds: [String: Double],
        environment: [String: String], notice: (String) -> Void
    ) async -> BenchWakeScorer {
        guard var configuration = WakeDetectorFactory.scorer(wake, selection: selection, thresholds: thresholds)
        else { return BenchWakeScorer() }
        let client = WyomingClient(host: wake.scorerHost, port: wake.scorerPort, connectTimeout: .seconds(1))
        if let info = try? await client.describe(timeout: .seconds(2)),
            WyomingServerProcess.Configuration.Program.clawtalkWake.isOffered(by: info)
        {
            notice("keyword scorer: \(info.summary ?? "clawtalk-wake") at \(wake.scorerHost):\(wake.scorerPort)")
            return BenchWakeScorer(configuration: configuration)
        }
        var server = SpeechServerSupervisor.installedWakeScorer(paths: XDGPaths(environment: environment))
        server.port = nil
        if let reason = server.notInstalledReason {
            notice("keyword scorer unavailable (\(reason)): PocketSphinx spots its triggers, as run would")
            return BenchWakeScorer()
        }
        do {
            let process = try await WyomingServerProcess.start(server)
            configuration.host = process.host
            configuration.port = process.port
            notice("keyword scorer: started clawtalk-wake for the bench at \(process.host):\(process.port)")
            return BenchWakeScorer(configuration: configuration, process: process)
        } catch {
            notice("keyword scorer unavailable (\(error)): PocketSphinx spots its triggers, as run would")
            return BenchWakeScorer()
        }
    }

    /// Stops the server started for the bench.
    func stop() async {
        await process?.stopAndWait()
    }
}
