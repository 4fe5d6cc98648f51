import ClawTalkNode
import ClawTalkSpeech
import ClawTalkSupport

/// The Whisper keyword scorer for `bench wake` and `bench all`: the one the user configured
/// (`wake.scorerHost`/`wake.scorerPort`/`wake.scorerSocket`) when it answers, else the installed
/// `clawtalk-wake` started for the bench on a free loopback port and stopped after it (never a
/// server that merely answers on a well-known port: another user's or another node's). Without
/// either, the bench measures what `run` would fall back to (PocketSphinx) and says so.
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
        let paths = XDGPaths(environment: environment)
        guard
            var configuration = WakeDetectorFactory.scorer(
                wake, selection: selection, thresholds: thresholds, paths: paths)
        else { return BenchWakeScorer() }
        if let address = wake.configuredAddress,
            let info = try? await WyomingClient(address: address, connectTimeout: .seconds(1))
                .describe(timeout: .seconds(2)),
            WyomingServerProcess.Configuration.Program.clawtalkWake.isOffered(by: info)
        {
            notice("keyword scorer: \(info.summary ?? "clawtalk-wake") at \(address)")
            return BenchWakeScorer(configuration: configuration)
        }
        var server = SpeechServerSupervisor.installedWakeScorer(paths: paths)
        server.address = nil
        if let reason = server.notInstalledReason {
            notice("keyword scorer unavailable (\(reason)): PocketSphinx spots its triggers, as run would")
            return BenchWakeScorer()
        }
        do {
            let process = try await WyomingServerProcess.start(server)
            configuration.address = process.address
            notice("keyword scorer: started clawtalk-wake for the bench at \(process.address)")
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
