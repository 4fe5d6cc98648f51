public import ClawTalkCommand

extension BenchCommand {
    /// `clawtalk bench loopback`.
    public struct Loopback: Command {
        /// The command name.
        public static let name = "loopback"
        /// One line for OVERVIEW.
        public static let abstract = "Measure capture and playback latency through a null-sink loopback rig."
        /// What is measured.
        public static let discussion = """
            Loads two null sinks (ct_mic, ct_spk) into the running PulseAudio server (start a \
            private one with scripts/audio-rig) and runs the node's capture, front end and \
            playback on them: capture latency per block size and playback latency by 5 ms \
            markers; end-of-utterance latency; barge-in as `clawtalk run` does it in Talk mode (on \
            a private sound server and test gateway: speech onset → reply silent at the speaker \
            monitor, → stopped after confirmation, a short sound's gap, false pauses while the \
            node reads alone for the exposure; echo path at −6 and 0 dB with AEC, and isolated \
            output); realtime Talk over the gateway relay in `clawtalk run` (the test gateway's \
            emulated provider: its first reply chunk → sound at the monitor, speech onset → reply \
            silent and → cancelOutput at the gateway, false cancels while the node reads alone \
            through the −6 dB echo path); TTS time to first audio for gateway clips (PCM, MP3, Ogg Opus, from the test \
            gateway after a fixed delay) and for espeak-ng; wake latency and wake → chime for a \
            spoken trigger; and the self-trigger rate while the node reads a text aloud through \
            the echo path, with and without AEC. Without a sound server every metric is reported \
            as not measured, with the reason.
            """
        /// The options.
        public static let options: [OptionSpec] =
            BenchCommand.sessionOptions + [BenchCommand.onlyOption, BenchCommand.bargeInConditionsOption]

        let options: BenchSession.Options
        let output: String?
        let conditions: String?

        /// Reads the arguments.
        public init(parsed: ParsedArguments) {
            options = BenchCommand.sessionOptions(parsed)
            output = parsed.string("output")
            conditions = parsed.string("bargein-conditions")
        }

        /// Rejects an unknown barge-in condition.
        public func validate() throws {
            if let conditions { _ = try BenchCommand.bargeInConditions(conditions) }
        }

        /// Runs the loopback measurements.
        public func run(context: CommandContext) async throws -> Int32 {
            let session = try BenchSession(options: options, context: context)
            let metrics = await session.loopback()
            return try BenchCommand.finish(session, metrics: metrics, output: output, context: context)
        }
    }
}
