import ClawTalkSupport
import Foundation
import Synchronization

/// The node's log as the barge-in bench reads it: Talk phases, pauses and confirmed
/// interruptions with their times, read on from where the last read stopped (the log of an hour
/// at debug level is megabytes; the bench must not spend a core re-reading it).
final class BargeInLog: Sendable {
    /// A `talk.phase … to=<phase>` line.
    struct Phase: Sendable, Hashable {
        var at: Date
        var to: String
    }

    /// Maps the node's wall-clock log times onto the bench's monotonic clock.
    struct Clock: Sendable {
        let wall = Date()
        let instant = ContinuousClock.now

        /// The bench instant of a log time.
        func instant(_ date: Date) -> ContinuousClock.Instant {
            instant + .milliseconds(Int((date.timeIntervalSince(wall) * 1000).rounded()))
        }

        /// The log time of a bench instant.
        func date(_ at: ContinuousClock.Instant) -> Date {
            wall.addingTimeInterval((at - instant) / .seconds(1))
        }
    }

    /// What the node did while it spoke in some stretches of time.
    struct Tally: Sendable, Hashable {
        /// `talk.pause on=true` lines: the reply paused.
        var pauses = 0
        /// `talk.onset.held` lines: onsets that the double-talk test took for the reply's echo.
        var held = 0
        /// Hours spent speaking.
        var hours = 0.0

        static func + (lhs: Tally, rhs: Tally) -> Tally {
            Tally(pauses: lhs.pauses + rhs.pauses, held: lhs.held + rhs.held, hours: lhs.hours + rhs.hours)
        }
    }

    private struct State {
        var offset: UInt64 = 0
        var partial = ""
        var phases: [Phase] = []
        var pauses: [Date] = []
        var held: [Date] = []
        var bargeIns: [Date] = []
    }

    private let file: URL
    private let state = Mutex(State())

    init(file: URL) {
        self.file = file
    }

    /// Phase changes so far.
    var phases: [Phase] { state.locked { $0.phases } }
    /// `talk.pause … on=true` times so far.
    var pauses: [Date] { state.locked { $0.pauses } }
    /// `talk.barge_in` times so far.
    var bargeIns: [Date] { state.locked { $0.bargeIns } }
    /// `talk.onset.held` times so far.
    var held: [Date] { state.locked { $0.held } }

    /// Reads what the node wrote since the last read.
    func read() {
        state.locked { state in
            guard let handle = try? FileHandle(forReadingFrom: file) else { return }
            defer { try? handle.close() }
            try? handle.seek(toOffset: state.offset)
            guard let data = try? handle.readToEnd(), !data.isEmpty else { return }
            state.offset += UInt64(data.count)
            var text = state.partial + String(decoding: data, as: UTF8.self)
            if let last = text.lastIndex(of: "\n") {
                state.partial = String(text[text.index(after: last)...])
                text = String(text[...last])
            } else {
                state.partial = text
                return
            }
            for line in text.split(separator: "\n") { Self.parse(line, into: &state) }
        }
    }

    /// Time spent speaking between `start` and `end`, and the pauses made and onsets held then.
    func speaking(from start: Date, to end: Date) -> Tally {
        let spans = speakingSpans(until: end).compactMap { span -> (Date, Date)? in
            let from = max(span.0, start)
            let to = min(span.1, end)
            return from < to ? (from, to) : nil
        }
        return count(in: spans)
    }

    /// Time spent speaking before `end` outside `windows` (the probes), and the pauses made and
    /// onsets held then.
    func speaking(
        excluding windows: [(ContinuousClock.Instant, ContinuousClock.Instant)], until end: Date, clock: Clock
    ) -> Tally {
        var spans = speakingSpans(until: end).compactMap { span -> (Date, Date)? in
            let to = min(span.1, end)
            return span.0 < to ? (span.0, to) : nil
        }
        for window in windows {
            let (from, to) = (clock.date(window.0), clock.date(window.1))
            spans = spans.flatMap { span -> [(Date, Date)] in
                guard from < span.1, to > span.0 else { return [span] }
                return [(span.0, from), (to, span.1)].filter { $0.0 < $0.1 }
            }
        }
        return count(in: spans)
    }

    // MARK: - Private

    private func speakingSpans(until end: Date) -> [(Date, Date)] {
        let phases = self.phases
        var spans: [(Date, Date)] = []
        for (index, phase) in phases.enumerated() where phase.to == "speaking" {
            spans.append((phase.at, index + 1 < phases.count ? phases[index + 1].at : end))
        }
        return spans
    }

    private func count(in spans: [(Date, Date)]) -> Tally {
        func within(_ dates: [Date]) -> Int {
            dates.filter { date in spans.contains { date >= $0.0 && date < $0.1 } }.count
        }
        let seconds = spans.reduce(0.0) { $0 + $1.1.timeIntervalSince($1.0) }
        return Tally(pauses: within(pauses), held: within(held), hours: seconds / 3600)
    }

    private static func parse(_ line: Substring, into state: inout State) {
        guard
            line.contains("talk.phase") || line.contains("talk.pause") || line.contains("talk.barge_in")
                || line.contains("talk.onset.held"),
            let stamp = line.split(separator: " ").first, let date = parseDate(String(stamp))
        else { return }
        if line.contains(" talk.phase "), let to = line.split(separator: " ").first(where: { $0.hasPrefix("to=") }) {
            state.phases.append(Phase(at: date, to: String(to.dropFirst(3))))
        } else if line.contains(" talk.pause "), line.split(separator: " ").contains("on=true") {
            state.pauses.append(date)
        } else if line.contains(" talk.onset.held ") {
            state.held.append(date)
        } else if line.contains(" talk.barge_in ") {
            state.bargeIns.append(date)
        }
    }

    /// `2026-12-03T17:18:42.689Z`.
    static func parseDate(_ text: String) -> Date? {
        try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
