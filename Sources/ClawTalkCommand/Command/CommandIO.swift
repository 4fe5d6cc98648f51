import Foundation

/// Where a command writes: standard output and standard error, injectable so tests can capture.
public struct CommandIO: Sendable {
    /// Receives text meant for standard output, newlines included.
    public var output: @Sendable (String) -> Void
    /// Receives text meant for standard error, newlines included.
    public var error: @Sendable (String) -> Void

    /// Writers from two closures.
    public init(output: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void) {
        self.output = output
        self.error = error
    }

    /// The process's own standard output and standard error.
    public static let standard = CommandIO(
        output: { FileHandle.standardOutput.write(Data($0.utf8)) },
        error: { FileHandle.standardError.write(Data($0.utf8)) }
    )

    /// Writes `text` to standard output as is.
    public func writeOutput(_ text: String) {
        output(text)
    }

    /// Writes `text` to standard error as is.
    public func writeError(_ text: String) {
        error(text)
    }
}
