/// The outbox's rules (talk.md §3, offline delivery), with no file, clock or gateway: order,
/// capacity, expiry, and whose reply is spoken when a queued transcript is finally sent.
/// ``TranscriptDelivery`` keeps one per gateway, saves it after each change and logs what each
/// step returns.
struct OutboxQueue: Sendable, Equatable {
    /// Transcripts waiting, oldest first.
    private(set) var entries: [QueuedTranscript]
    /// Most transcripts kept; the oldest goes beyond.
    let capacity: Int
    /// Transcripts queued longer ago than this (milliseconds) are dropped.
    let maxAgeMs: Int64
    /// A flushed transcript's reply is spoken only if it waited at most this long (milliseconds).
    let speakRepliesWithinMs: Int64

    /// A queue holding `entries` (as loaded), not yet checked for expiry.
    init(entries: [QueuedTranscript] = [], capacity: Int, maxAgeMs: Int64, speakRepliesWithinMs: Int64) {
        self.entries = entries
        self.capacity = capacity
        self.maxAgeMs = maxAgeMs
        self.speakRepliesWithinMs = speakRepliesWithinMs
    }

    /// The queue of `configuration`'s limits.
    init(entries: [QueuedTranscript] = [], configuration: TranscriptDelivery.Configuration) {
        self.init(
            entries: entries, capacity: configuration.outboxCapacity,
            maxAgeMs: configuration.outboxMaxAge.wholeMilliseconds,
            speakRepliesWithinMs: configuration.speakRepliesQueuedWithin.wholeMilliseconds)
    }

    /// The oldest transcript, sent first.
    var head: QueuedTranscript? { entries.first }

    var isEmpty: Bool { entries.isEmpty }

    var count: Int { entries.count }

    /// Drops what expired at `nowMs`, then appends `entry`; returns the oldest transcripts dropped
    /// to stay within ``capacity``.
    mutating func append(_ entry: QueuedTranscript, nowMs: Int64) -> (
        expired: [QueuedTranscript], full: [QueuedTranscript]
    ) {
        let expired = removeExpired(nowMs: nowMs)
        entries.append(entry)
        let over = max(0, entries.count - capacity)
        let full = Array(entries.prefix(over))
        entries.removeFirst(over)
        return (expired, full)
    }

    /// Removes and returns the transcripts queued more than ``maxAgeMs`` before `nowMs`.
    mutating func removeExpired(nowMs: Int64) -> [QueuedTranscript] {
        let cutoff = nowMs - maxAgeMs
        let expired = entries.filter { $0.queuedAtMs < cutoff }
        if !expired.isEmpty { entries.removeAll { $0.queuedAtMs < cutoff } }
        return expired
    }

    /// Whether sending the head at `nowMs` follows its reply: only the last one in the queue, only
    /// when the caller speaks replies of a flush (`trackLast`), and only if it waited at most
    /// ``speakRepliesWithinMs`` (an answer to a question asked long ago would surprise the user).
    func tracksReplyOfHead(trackLast: Bool, nowMs: Int64) -> Bool {
        guard let head, trackLast, entries.count == 1 else { return false }
        return nowMs - head.queuedAtMs <= speakRepliesWithinMs
    }

    /// Removes the head (it was sent, or refused for good).
    mutating func removeHead() {
        if !entries.isEmpty { entries.removeFirst() }
    }
}
