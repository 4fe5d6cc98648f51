public import Foundation
import Synchronization

/// The byte destination of a line sink: stderr, a file handle, or a closure (tests).
///
/// Every write happens under one lock, so lines from concurrent tasks never interleave.
public final class LogOutput: Sendable {
    private let lock = Mutex(())
    private let writeLine: @Sendable (String) -> Void

    /// Wraps a closure that receives each complete line, newline included.
    public init(_ writeLine: @escaping @Sendable (String) -> Void) {
        self.writeLine = writeLine
    }

    /// Writes to the given file handle; write errors (closed stderr, EPIPE) are ignored.
    public convenience init(fileHandle: FileHandle) {
        self.init { line in
            try? fileHandle.write(contentsOf: Data(line.utf8))
        }
    }

    /// The process's standard error (the journal, under systemd).
    public static let standardError = LogOutput(fileHandle: .standardError)

    /// Writes `line` followed by a newline, atomically with respect to other writers.
    public func write(line: String) {
        let full = line + "\n"
        lock.locked { _ in writeLine(full) }
    }
}
