public import ClawTalkCommand

/// `clawtalk bench`: the latency and accuracy benchmarks of docs/benchmarks.md.
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
    public static let subcommands: [any Command.Type] = [
        Wake.self, Loopback.self, CPU.self, Service.self, Soak.self, Turn.self, Stop.self, All.self, Compare.self,
    ]

    /// The group takes no arguments of its own.
    public init(parsed: ParsedArguments) {}
}
