public import ClawTalkAudio

/// Monotonic timestamps and amounts for one played item, for the latency benchmark and logs.
///
/// Instants come from `ContinuousClock`. "Written" means handed to the sound server; audio is
/// heard about one stream latency later (``PlaybackController/outputLatency``).
public struct PlaybackTiming: Sendable, Equatable {
    /// The item's kind.
    public var kind: PlaybackItem.Kind
    /// The item's format (the stream was opened in it).
    public var format: AudioFormat
    /// When the item was handed to the controller.
    public var enqueuedAt: ContinuousClock.Instant
    /// When the playback thread took the item up (it was waiting in the queue before).
    public var dequeuedAt: ContinuousClock.Instant?
    /// How long opening the playback stream took; nil when the open stream was reused.
    public var streamOpenDuration: Duration?
    /// When the first chunk was written (`playback.firstWrite`).
    public var firstWriteAt: ContinuousClock.Instant?
    /// When the last chunk was written (`playback.lastWrite`).
    public var lastWriteAt: ContinuousClock.Instant?
    /// When the sink began playing the item (first write plus the queued latency it reported).
    public var startedAt: ContinuousClock.Instant?
    /// Seconds of audio written to the sound server.
    public var writtenSeconds: Double
    /// When ``PlaybackController/stop()`` (or cancellation) asked this item to stop.
    public var stopRequestedAt: ContinuousClock.Instant?
    /// When the playback thread had flushed the stream after that request.
    public var flushedAt: ContinuousClock.Instant?
    /// When the item's outcome was decided.
    public var endedAt: ContinuousClock.Instant?

    /// Time from the stop request to the flushed stream (the stop latency), if the item was stopped.
    public var stopLatency: Duration? {
        guard let stopRequestedAt, let flushedAt else { return nil }
        return flushedAt - stopRequestedAt
    }

    /// Time from being handed over to the first write.
    public var queueToFirstWrite: Duration? {
        firstWriteAt.map { $0 - enqueuedAt }
    }

    /// An empty timing for an item that has not been taken up yet.
    init(kind: PlaybackItem.Kind, format: AudioFormat, enqueuedAt: ContinuousClock.Instant) {
        self.kind = kind
        self.format = format
        self.enqueuedAt = enqueuedAt
        writtenSeconds = 0
    }
}
