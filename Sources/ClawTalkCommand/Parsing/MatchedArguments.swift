/// The result of phase 2: raw text per spec key, before conversion.
public struct MatchedArguments: Equatable, Sendable {
    /// One occurrence of a spec on the command line.
    public struct Occurrence: Equatable, Sendable {
        /// The value as typed; nil for a flag.
        public var text: String?
        /// Index of the argument the value (or flag) came from.
        public var position: Int

        /// An occurrence of `text` (nil for flags) at `position`.
        public init(_ text: String?, position: Int) {
            self.text = text
            self.position = position
        }
    }

    /// Occurrences per spec key, in command-line order.
    public var occurrences: [String: [Occurrence]]

    /// Matched arguments from a prepared table (tests build these directly).
    public init(_ occurrences: [String: [Occurrence]] = [:]) {
        self.occurrences = occurrences
    }

    /// Records one more occurrence under `key`.
    public mutating func append(_ occurrence: Occurrence, for key: String) {
        occurrences[key, default: []].append(occurrence)
    }
}
