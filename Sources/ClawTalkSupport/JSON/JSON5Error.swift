/// A JSON5 syntax error with its position: `line 12, column 5: expected ':' after key`.
public struct JSON5Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the problem was found.
    public var position: SourcePosition
    /// What was wrong, without the position.
    public var message: String

    /// Creates an error.
    public init(position: SourcePosition, message: String) {
        self.position = position
        self.message = message
    }

    /// Line of the problem, from 1.
    public var line: Int { position.line }
    /// Column of the problem, from 1.
    public var column: Int { position.column }

    /// `line L, column C: message`.
    public var description: String { "\(position): \(message)" }
}
