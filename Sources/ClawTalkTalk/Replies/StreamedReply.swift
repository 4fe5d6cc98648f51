import ClawTalkProtocol

/// What is spoken of one run's streamed reply (talk.md §4.3): the decisions of one
/// followed turn, as a pure value.
///
/// - Both streams of the run are held (``ReplyText``): `chat` deltas and `agent` `assistant`
///   events. The first that brings text **leads**: only its text is read for speech while the
///   reply streams (the other one repeats it, in its own rhythm).
/// - Each piece of the lead is an extension or a rewrite (``ReplyText``); a rewrite starts a
///   new draft of the speakable text (``SpeakableTextBuffer``): what the discarded draft had not
///   spoken yet is dropped, and sentences already spoken are not spoken again when the new
///   draft repeats them. Each sentence is spoken once.
/// - The final text is the truth for what the reply said: one that does not continue what was
///   read is a rewrite like any other, so it too speaks only what was not spoken yet.
/// - Not ``incremental``: nothing is spoken before ``finish(_:)``.
struct StreamedReply: Sendable {
    /// The stream a piece came from.
    enum Source: String, Sendable, Equatable {
        /// `chat` `state:"delta"` events.
        case chat
        /// `agent` `stream:"assistant"` events.
        case agent
    }

    /// What one streamed piece did.
    struct Step: Sendable, Equatable {
        /// Segments to speak now, in order.
        var segments: [String]
        /// How the piece changed its stream's text.
        var change: ReplyText.Change
        /// Whether the piece came from the lead stream (only the lead is spoken while streaming).
        var fromLead: Bool
    }

    /// Emit segments while the reply streams (else only at ``finish(_:)``).
    let incremental: Bool
    /// The text of the `chat` deltas.
    private(set) var chatText = ReplyText()
    /// The text of the `agent` `assistant` events.
    private(set) var agentText = ReplyText()
    /// The stream spoken while the reply streams; nil until one brings text (always nil when
    /// not ``incremental``).
    private(set) var lead: Source?
    private var buffer: SpeakableTextBuffer

    /// A reply with nothing received; `softLimit` is the segment length after which speech cuts
    /// at whitespace.
    init(incremental: Bool, softLimit: Int = 72) {
        self.incremental = incremental
        buffer = SpeakableTextBuffer(softLimit: softLimit)
    }

    /// The best text held when the run ends without a final text: the `chat` text, else the
    /// `agent` text.
    var heldText: String {
        chatText.text.isEmpty ? agentText.text : chatText.text
    }

    /// The directive of the reply, once known.
    var directive: TalkDirective? { buffer.directive }

    /// Segments (numbered in emission order) that a rewrite discarded since the last call.
    mutating func takeWithdrawals() -> [Int] { buffer.takeWithdrawals() }

    /// Everything handed to speech, segments joined by spaces.
    var spokenText: String { buffer.spokenText }

    /// The speakable text of the reply as it now reads (its last draft), segments joined by
    /// spaces.
    var replyText: String { buffer.draftText }

    /// Takes one streamed piece from `source`.
    mutating func receive(_ piece: StreamedText, from source: Source) -> Step {
        let change: ReplyText.Change
        let text: String
        switch source {
        case .chat:
            change = chatText.absorb(piece)
            text = chatText.text
        case .agent:
            change = agentText.absorb(piece)
            text = agentText.text
        }
        guard incremental, change != .unchanged else {
            return Step(segments: [], change: change, fromLead: lead == source)
        }
        if lead == nil, !text.isEmpty { lead = source }
        guard lead == source else { return Step(segments: [], change: change, fromLead: false) }
        let segments = buffer.update(text, rewrite: change == .rewritten)
        return Step(segments: segments, change: change, fromLead: true)
    }

    /// Ends the reply with its final text (nil or empty: ``heldText``); returns the segments
    /// still to speak.
    mutating func finish(_ finalText: String?) -> [String] {
        let text = finalText.flatMap { $0.isEmpty ? nil : $0 } ?? heldText
        return buffer.finish(text)
    }
}
