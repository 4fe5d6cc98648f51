/// The process exit codes `clawtalk` uses (documented in `clawtalk help`).
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// A runtime failure: the command was well-formed but could not complete.
    case failure = 1
    /// The command line was malformed (`EX_USAGE`, as swift-argument-parser uses).
    case usage = 64
    /// The gateway or an audio device is unavailable (`EX_UNAVAILABLE`).
    case unavailable = 69
}
