public import ClawTalkCommand
import ClawTalkSupport
import Synchronization

/// Collects what a command writes to standard output and standard error, for tests that run
/// commands in process (`CommandDispatcher.execute(…, io: capture.io, …)`).
public final class OutputCapture: Sendable {
    private let state = Mutex<(output: String, error: String)>(("", ""))

    /// An empty capture.
    public init() {}

    /// Writers that append to this capture.
    public var io: CommandIO {
        CommandIO(
            output: { text in self.state.locked { $0.output += text } },
            error: { text in self.state.locked { $0.error += text } })
    }

    /// Everything written to standard output so far.
    public var output: String { state.locked { $0.output } }
    /// Everything written to standard error so far.
    public var error: String { state.locked { $0.error } }
}
