/// The assistant text of a run as it streams in (talk-contract §4.3): whether `delta` and
/// `agent` texts are cumulative or incremental is unverified upstream, so a new text that
/// starts with the text held replaces it (cumulative), anything else is appended (incremental).
struct ReplyText: Sendable, Equatable {
    /// The text so far.
    private(set) var text = ""

    /// Takes one streamed text; returns whether the held text changed.
    @discardableResult
    mutating func absorb(_ next: String) -> Bool {
        guard !next.isEmpty else { return false }
        if next.hasPrefix(text) {
            defer { text = next }
            return next != text
        }
        text += next
        return true
    }
}
