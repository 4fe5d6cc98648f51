/// What the realtime bench reads from one probe (issue 34, talk.md §9.2), in ms, pure: the
/// bench stamps the instants and this turns them into figures.
enum RealtimeFigures {
    /// `realtime.reply_audio`: the gateway sent a reply's first chunk (whose audio sounds from its
    /// first sample) → sound at the speaker monitor within 2 s. Nil when the monitor was still
    /// sounding when the chunk went out, or stayed silent.
    static func replyAudio(firstChunk: ContinuousClock.Instant, monitor: MonitorTimeline) -> Double? {
        monitor.soundOnset(after: firstChunk, before: firstChunk + .seconds(2)).map { BenchClock.ms($0 - firstChunk) }
    }

    /// `realtime.bargein`: the user's speech onset → the reply silent at the monitor (a silence of
    /// at least ``MonitorTimeline/minimumGap`` starting within 2 s of the onset). `now` is the
    /// monitor's last read.
    static func silent(
        onset: ContinuousClock.Instant, monitor: MonitorTimeline, now: ContinuousClock.Instant
    ) -> Double? {
        monitor.pause(after: onset, before: onset + .seconds(2), now: now).map { BenchClock.ms($0.start - onset) }
    }

    /// `realtime.bargein.cancel`: the onset → the first `cancelOutput` that reached the gateway
    /// within 5 s of it (one from before the onset is another probe's, or a false cancel).
    static func cancel(onset: ContinuousClock.Instant, cancels: [ContinuousClock.Instant]) -> Double? {
        cancels.filter { $0 >= onset && $0 < onset + .seconds(5) }.min().map { BenchClock.ms($0 - onset) }
    }

    /// `realtime.false_cancels_per_hour`: cancels that arrived while the node read replies alone,
    /// over the hours it spent reading them (`spans`, each a reply from its first chunk to its end).
    static func falseCancels(
        cancels: [ContinuousClock.Instant], spans: [(start: ContinuousClock.Instant, end: ContinuousClock.Instant)]
    ) -> (count: Int, hours: Double) {
        let count = cancels.filter { at in spans.contains { at >= $0.start && at <= $0.end } }.count
        let seconds = spans.reduce(0.0) { $0 + BenchClock.ms($1.end - $1.start) / 1000 }
        return (count, seconds / 3600)
    }
}
