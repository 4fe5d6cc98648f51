/// `clawtalk bench`: the latency and accuracy benchmarks of spec/benchmark.md.
public struct BenchCommand: Command {
    /// The command name.
    public static let name = "bench"
    /// One line for OVERVIEW.
    public static let abstract = "Measure wake-word accuracy, audio latency and CPU use."
    /// What the benchmarks need.
    public static let discussion = """
        Audio is injected without a microphone: from the generated test corpus, or through a \
        PulseAudio null-sink loopback rig. Reports state whether each goal was met on this \
        machine and corpus, nothing more.
        """
    /// The benchmark families.
    public static let subcommands: [any Command.Type] = [Wake.self, Loopback.self, CPU.self, All.self]

    /// The group takes no arguments of its own.
    public init(parsed: ParsedArguments) {}

    /// `clawtalk bench loopback`.
    public struct Loopback: PendingCommand {
        /// The command name.
        public static let name = "loopback"
        /// One line for OVERVIEW.
        public static let abstract = "Measure capture and playback latency through a null-sink loopback rig."
        /// Tracked in issue 7.
        public static let trackingIssue: Int? = 7
        /// Takes no arguments.
        public init(parsed: ParsedArguments) {}
    }

    /// `clawtalk bench cpu`.
    public struct CPU: PendingCommand {
        /// The command name.
        public static let name = "cpu"
        /// One line for OVERVIEW.
        public static let abstract = "Measure the CPU use of the audio front end."
        /// Tracked in issue 7.
        public static let trackingIssue: Int? = 7
        /// Takes no arguments.
        public init(parsed: ParsedArguments) {}
    }

    /// `clawtalk bench all`.
    public struct All: PendingCommand {
        /// The command name.
        public static let name = "all"
        /// One line for OVERVIEW.
        public static let abstract = "Run every benchmark and write one report."
        /// Tracked in issue 7.
        public static let trackingIssue: Int? = 7
        /// Takes no arguments.
        public init(parsed: ParsedArguments) {}
    }
}
