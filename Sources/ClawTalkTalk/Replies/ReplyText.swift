/// One streamed piece of a run's assistant text as the gateway sent it (talk.md §4.3).
struct StreamedText: Sendable, Equatable {
    /// The whole text so far: the `message` text of a `chat` delta, `data.text` of an `agent`
    /// `assistant` event; empty when not sent.
    var text: String
    /// Only the new part, when sent: `deltaText` of a `chat` delta, `data.delta` of an `agent` event.
    var delta: String?
    /// `replace:true`: the text restarts the reply (a new LLM call inside the run).
    var replace: Bool

    /// A piece with the given values.
    init(text: String, delta: String? = nil, replace: Bool = false) {
        self.text = text
        self.delta = delta
        self.replace = replace
    }
}

/// The assistant text of one stream of a run (`chat` deltas or `agent` `assistant` events) and
/// how each new piece changes it (talk.md §4.3). Upstream streamed text is cumulative, and
/// a new LLM call inside the same run restarts it, so a piece is one of:
///
/// - **a rewrite** when it says `replace:true` (whatever its text), or when its whole text does
///   not start with the text held: never appended; its text (or, without text, its `delta`)
///   becomes the text held;
/// - **an extension** when its whole text starts with the text held (the text is adopted), or,
///   when it has no whole text, its `delta` is appended;
/// - **no change** otherwise (nothing sent, or the same text again).
///
/// When both the whole text and `delta` are sent, the whole text decides: it is the gateway's
/// truth, while `delta` only extends the text the gateway last sent, which a dropped event
/// (upstream sends deltas `dropIfSlow`) makes differ from the text held. Pure.
struct ReplyText: Sendable, Equatable {
    /// What a piece did to the text held.
    enum Change: Sendable, Equatable {
        /// Nothing new.
        case unchanged
        /// The text held grew at its end.
        case extended
        /// The text held was replaced by a new draft.
        case rewritten
    }

    /// The text so far.
    private(set) var text = ""

    /// Takes one streamed piece; returns how it changed the text held.
    @discardableResult
    mutating func absorb(_ piece: StreamedText) -> Change {
        if piece.replace {
            text = piece.text.isEmpty ? (piece.delta ?? "") : piece.text
            return .rewritten
        }
        if !piece.text.isEmpty {
            guard piece.text != text else { return .unchanged }
            let change: Change = piece.text.hasPrefix(text) ? .extended : .rewritten
            text = piece.text
            return change
        }
        guard let delta = piece.delta, !delta.isEmpty else { return .unchanged }
        text += delta
        return .extended
    }
}
