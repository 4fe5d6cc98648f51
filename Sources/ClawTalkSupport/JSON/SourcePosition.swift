/// A 1-based line and column (counted in Unicode scalars) in a source text.
public struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
    /// Line number, from 1.
    public var line: Int
    /// Column number, from 1.
    public var column: Int

    /// Creates a position.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line 12, column 5`.
    public var description: String { "line \(line), column \(column)" }
}
