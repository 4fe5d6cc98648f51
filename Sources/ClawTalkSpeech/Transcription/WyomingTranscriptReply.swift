/// What a Wyoming server answered to one transcription: the `transcript` event's `text`, and
/// the fields clawtalk-speech adds to it.
public struct WyomingTranscriptReply: Sendable, Hashable {
    /// The text as given (untrimmed).
    public var text: String
    /// P(the speaker's turn is complete) from the server's end-of-turn model (`turn_complete`),
    /// when the request asked for it and the server has the model; nil otherwise.
    public var turnComplete: Double?
    /// The server found no speech and decoded nothing (`silent`).
    public var silent: Bool

    /// Creates a reply.
    public init(text: String, turnComplete: Double? = nil, silent: Bool = false) {
        self.text = text
        self.turnComplete = turnComplete
        self.silent = silent
    }
}
