import ClawTalkCommand
import ClawTalkSupport
import Synchronization

/// Collects what a command writes to standard output and standard error (as ClawTalkCLITests'
/// own capture does).
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

/// The outcome of one in-process run.
struct CapturedRun {
    var status: Int32
    var output: String
    var error: String
}

/// Runs `arguments` (without the program name) against `root` in process.
func execute(_ root: any Command.Type, _ arguments: [String]) async -> CapturedRun {
    let capture = OutputCapture()
    let status = await CommandDispatcher.execute(
        root: root, arguments: [root.name] + arguments, io: capture.io, environment: [:])
    return CapturedRun(status: status, output: capture.output, error: capture.error)
}
