import ClawTalkAudio
import ClawTalkSupport
import Synchronization

/// One segment of a speech session's text, numbered in the order it was handed over.
public struct SpeechSegment: Sendable, Equatable {
    /// The text to speak.
    public var text: String
    /// Its number in the session (a reply's segments count from 0).
    public var id: Int

    /// Segment `id` of the session.
    public init(text: String, id: Int) {
        self.text = text
        self.id = id
    }
}

/// The withdrawn segments of one speech session (talk.md §4.3, "drop what was held but
/// not yet spoken"): a streamed reply that rewrites itself withdraws the segments of the
/// discarded draft, and every withdrawn segment that has not started playing is dropped — not
/// synthesized if it was still waiting, not played if its audio was waiting for its turn. What
/// already plays goes on: a sentence under way is finished, never cut mid-word.
public final class SpeechWithdrawals: Sendable {
    private let withdrawn = Mutex<Set<Int>>([])

    /// Nothing withdrawn.
    public init() {}

    /// Withdraws segments `ids`.
    public func withdraw(_ ids: some Sequence<Int>) {
        withdrawn.locked { $0.formUnion(ids) }
    }

    /// Whether segment `id` may still start.
    func admits(_ id: Int) -> Bool {
        !withdrawn.locked { $0.contains(id) }
    }
}

/// Synthesized audio of one segment.
struct SpeechClip: Sendable {
    let pcm: PCMBuffer
    let segment: Int
}

/// Where the producer of a session puts the audio of one segment: the session's clip stream,
/// tagged with the segment's number.
struct ClipSink: Sendable {
    let continuation: AsyncStream<SpeechClip>.Continuation
    let segment: Int

    func yield(_ pcm: PCMBuffer) {
        continuation.yield(SpeechClip(pcm: pcm, segment: segment))
    }
}
