/// An error from below the command line that knows how the command line reports it. When a
/// command's `run(context:)` throws one, ``CommandDispatcher`` reports its ``cliError``
/// instead (its message, exit code and whether the usage line follows).
public protocol CLIErrorConvertible: Error {
    /// The command line's view of this error.
    var cliError: CLIError { get }
}
