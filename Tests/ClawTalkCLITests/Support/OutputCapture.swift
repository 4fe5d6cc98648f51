import ClawTalkCommand
import ClawTalkSupport
import Synchronization

/// Collects what a command writes to standard output and standard error.
final class OutputCapture: Sendable {
    private let state = Mutex<(output: String, error: String)>(("", ""))

    /// Writers that append to this capture.
    var io: CommandIO {
        CommandIO(
            output: { text in self.state.locked { $0.output += text } },
            error: { text in self.state.locked { $0.error += text } })
    }

    /// Everything written to standard output so far.
    var output: String { state.locked { $0.output } }
    /// Everything written to standard error so far.
    var error: String { state.locked { $0.error } }
}
