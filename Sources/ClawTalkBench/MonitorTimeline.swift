/// What the speaker monitor did over a run, as the changes between sound and silence (10 ms
/// reads, −40 dBFS), and what a barge-in probe reads from it (issue 15, benchmarks.md §2):
/// - **pause**: the reply falls silent for at least ``minimumGap`` after the user's speech
///   onset (a spoken reply without punctuation has no gap that long between its words);
/// - **gap**: how long that silence lasted before the reply played again (a false onset's cost).
///
/// Pure: the recorder appends, the bench asks.
struct MonitorTimeline: Sendable, Hashable {
    /// A change at the monitor: sound (true) or silence (false) from `at` on.
    struct Change: Sendable, Hashable {
        var at: ContinuousClock.Instant
        var sound: Bool
    }

    /// A silence at the monitor: from `start` to `end` (nil: still silent at the last read).
    struct Silence: Sendable, Hashable {
        var start: ContinuousClock.Instant
        var end: ContinuousClock.Instant?

        /// Its length up to `now` when it has not ended.
        func length(until now: ContinuousClock.Instant) -> Duration { (end ?? now) - start }
    }

    /// Shortest silence that counts as the reply pausing (0.15 s).
    static let minimumGap = Duration.milliseconds(150)

    private(set) var changes: [Change] = []

    /// Notes one read: sound or not, from `at`. Only changes are kept.
    mutating func note(sound: Bool, at instant: ContinuousClock.Instant) {
        if changes.last?.sound == sound { return }
        if changes.isEmpty, !sound { return }
        changes.append(Change(at: instant, sound: sound))
    }

    /// The first silence of at least ``minimumGap`` that starts at or after `onset` and before
    /// `deadline` (a reply already silent at `onset` is not paused by it). `now` is the last read.
    func pause(
        after onset: ContinuousClock.Instant, before deadline: ContinuousClock.Instant, now: ContinuousClock.Instant
    ) -> Silence? {
        silences(now: now).first { silence in
            silence.start >= onset && silence.start < deadline && silence.length(until: now) >= Self.minimumGap
        }
    }

    /// Whether the monitor had sound at any time between `start` and `end`: a stopped reply
    /// stays silent.
    func sound(between start: ContinuousClock.Instant, and end: ContinuousClock.Instant) -> Bool {
        let atStart = changes.last { $0.at <= start }?.sound ?? false
        return atStart || changes.contains { $0.sound && $0.at > start && $0.at <= end }
    }

    /// When sound began at the monitor at or after `start` and before `deadline`; nil when it
    /// was already sounding at `start` (a reply before it still playing) or stayed silent.
    func soundOnset(after start: ContinuousClock.Instant, before deadline: ContinuousClock.Instant)
        -> ContinuousClock.Instant?
    {
        if changes.last(where: { $0.at <= start })?.sound == true { return nil }
        return changes.first { $0.sound && $0.at >= start && $0.at < deadline }?.at
    }

    /// Every silence after the first sound, in order.
    func silences(now: ContinuousClock.Instant) -> [Silence] {
        var result: [Silence] = []
        for (index, change) in changes.enumerated() where !change.sound {
            let next = index + 1 < changes.count ? changes[index + 1].at : nil
            result.append(Silence(start: change.at, end: next))
        }
        return result
    }
}
