import ClawTalkDevices
import ClawTalkSupport
import Foundation
import Synchronization

/// `events.jsonl` (benchmarks.md §1.4, §7.1): the stamps behind every loopback latency, one JSON
/// object per line, `{"t_ns":…,"event":"…","clip":"…","data":{…}}`, `t_ns` on CLOCK_MONOTONIC.
final class BenchEventLog: Sendable {
    /// One event.
    struct Event: Codable, Sendable {
        var nanoseconds: Int64
        var event: String
        var clip: String
        var data: [String: String]

        enum CodingKeys: String, CodingKey {
            case nanoseconds = "t_ns"
            case event, clip, data
        }
    }

    private let events = Mutex<[Event]>([])

    /// Records `event` at `instant` (bench clock) for probe `clip`.
    func record(_ event: String, at instant: ContinuousClock.Instant, clip: String, data: [String: String] = [:]) {
        let nanoseconds = Int64(MonotonicTime.nanoseconds()) - Int64(BenchClock.ms(ContinuousClock.now - instant) * 1e6)
        events.locked { $0.append(Event(nanoseconds: nanoseconds, event: event, clip: clip, data: data)) }
    }

    /// How many events so far.
    var count: Int { events.locked { $0.count } }

    /// The events in time order, one JSON object per line.
    var jsonLines: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return events.locked { $0 }.sorted { $0.nanoseconds < $1.nanoseconds }.compactMap { event in
            (try? encoder.encode(event)).map { String(decoding: $0, as: UTF8.self) + "\n" }
        }.joined()
    }
}
