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

    /// `realtime.append`: a sound that starts at `onset` in the microphone (sharp, after silence)
    /// → the append that carries its first sample arrived at the gateway, less the rest of that
    /// chunk's 20 ms (it cannot go out before its last sample was captured): from the moment the
    /// chunk's audio was all at the microphone to its arrival. `audio` is the session's appended
    /// audio (24 kHz), `chunks` each append's length and arrival. The sound is the first sample
    /// from the first chunk that arrived after `onset` whose magnitude reaches `threshold`. Nil
    /// when none does within 1 s of arrivals.
    static func append(
        onset: ContinuousClock.Instant, audio: [Int16], chunks: [(samples: Int, arrived: ContinuousClock.Instant)],
        threshold: Int16, rate: Int = 24_000
    ) -> Double? {
        var start = 0
        for chunk in chunks {
            defer { start += chunk.samples }
            guard chunk.arrived > onset, chunk.arrived < onset + .seconds(1), start + chunk.samples <= audio.count
            else { continue }
            guard
                let first = audio[start..<start + chunk.samples].firstIndex(where: {
                    $0 == Int16.min || abs($0) >= threshold
                })
            else { continue }
            let rest = BenchClock.duration(samples: start + chunk.samples - first, rate: rate)
            return BenchClock.ms(chunk.arrived - (onset + rest))
        }
        return nil
    }

    /// Appends whose `timestamp` is not the chunk's start in whole milliseconds (the samples before
    /// it at `rate`, rounded down): out of order, repeated or skipped.
    /// Chunks of a session restarted by `ready` start again from 0 and count as in order.
    static func badTimestamps(_ timestamps: [Int64], chunkSamples: [Int], rate: Int = 24_000) -> Int {
        var bad = 0
        var samples = 0
        for (timestamp, count) in zip(timestamps, chunkSamples) {
            // A new `ready` restarts the timeline.
            if timestamp == 0 { samples = 0 }
            if timestamp != Int64(samples) * 1000 / Int64(rate) { bad += 1 }
            samples += count
        }
        return bad
    }
}
