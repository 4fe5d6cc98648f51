/// A parsed JSON5 text with the source position of every object key, for error messages that
/// point into the file.
public struct JSON5Document: Sendable, Equatable {
    /// The top-level value.
    public var value: JSONValue
    /// Position of each object key, by its path of keys from the root (array elements are
    /// entered as `"[i]"`).
    public var keyPositions: [[String]: SourcePosition]

    /// Creates a document.
    public init(value: JSONValue, keyPositions: [[String]: SourcePosition] = [:]) {
        self.value = value
        self.keyPositions = keyPositions
    }

    /// Where the key at `path` was written, if it was.
    public func position(ofKey path: [String]) -> SourcePosition? { keyPositions[path] }
}
