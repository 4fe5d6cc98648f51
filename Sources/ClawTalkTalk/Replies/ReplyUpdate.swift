public import ClawTalkProtocol

/// What ``ReplyTracker`` reports about the reply to a user turn, in order: speakable segments
/// as the reply streams in, then exactly one `finished` or `failed`.
public enum ReplyUpdate: Sendable, Equatable {
    /// A speakable segment (directive stripped, code skipped, markup removed); `index` counts the
    /// turn's segments from 0.
    case segment(turn: Int, index: Int, text: String, directive: TalkDirective?)
    /// The reply rewrote itself (talk.md §4.3) and discarded the segments at these indices: what of them
    /// has not started playing is not to be spoken.
    case withdrawn(turn: Int, segments: [Int])
    /// The reply is complete; every segment was reported. `text` is the reply's speakable text
    /// as it finally read: after a rewrite (talk.md §4.3) it holds the last draft, which may differ from
    /// what was spoken (a spoken sentence of a discarded draft cannot be taken back).
    case finished(turn: Int, text: String, directive: TalkDirective?)
    /// No (further) reply will be spoken for this turn.
    case failed(turn: Int, reason: ReplyFailure)

    /// The turn the update belongs to.
    public var turn: Int {
        switch self {
        case .segment(let turn, _, _, _), .withdrawn(let turn, _), .finished(let turn, _, _), .failed(let turn, _): turn
        }
    }
}

/// Why a turn ended without a (complete) reply.
public enum ReplyFailure: Sendable, Equatable, CustomStringConvertible {
    /// The run was aborted (`chat` state `aborted`).
    case aborted
    /// The run failed (`chat` state `error`), with the gateway's message if any.
    case error(String?)
    /// No reply within the deadline (120 s).
    case timedOut
    /// A newer user turn started.
    case superseded
    /// Tracking was cancelled (the transcript was not delivered, or speech was stopped).
    case cancelled

    /// One line.
    public var description: String {
        switch self {
        case .aborted: "aborted"
        case .error(let message): "error" + (message.map { ": \($0)" } ?? "")
        case .timedOut: "timed out"
        case .superseded: "superseded by a newer turn"
        case .cancelled: "cancelled"
        }
    }
}
