import ClawTalkCommand
import ClawTalkTesting

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
