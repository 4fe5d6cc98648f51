import ClawTalkDevices
import ClawTalkSupport

/// What the service logs about its microphone (``Microphone/watchHealth(logger:)``): the capture engine handles a lost source by
/// itself (fallback to the default source, reopening with backoff) and leaves the logging to its
/// owner. The watch reads the engine's state now and then and turns what changed into events:
/// - `mic.opened` (info): the first stream is open;
/// - `mic.fallback` (warning): the chosen source is gone, the default source stands in;
/// - `mic.lost` (warning): nothing can be opened; wake, push-to-talk and Talk hear nothing
///   until it comes back;
/// - `mic.restored` (notice): capturing again after either, or after a reopen the watch did
///   not see go down (a sound server restarted between two looks), with how long it was down.
///
/// A pure state machine: the caller supplies the readings and the clock.
struct MicrophoneWatch {
    /// One event to log.
    struct Event: Equatable {
        var level: LogLevel
        var name: String
        var fields: [String: LogValue]
    }

    private var last: CaptureState = .idle
    private var reopens = 0
    private var readErrors = 0
    /// When the source went away (monotonic seconds), while it is away.
    private var downSince: Double?

    /// The events for a reading of `stats` taken at `now` (monotonic seconds).
    mutating func observe(_ stats: CaptureStats, at now: Double) -> [Event] {
        defer {
            last = stats.state
            reopens = stats.reopenCount
            readErrors = stats.readErrors
        }
        let counters: [String: LogValue] = [
            "reopens": .int(stats.reopenCount), "readErrors": .int(stats.readErrors),
            "openFailures": .int(stats.openFailures),
        ]
        switch stats.state {
        case .idle, .stopped:
            return []
        case .capturing(let device):
            let name: LogValue = .string(device ?? "(default)")
            if case .idle = last {
                return [Event(level: .info, name: "mic.opened", fields: ["device": name])]
            }
            let wasAway = downSince != nil
            guard wasAway || stats.reopenCount > reopens else { return [] }
            var fields = counters.merging(["device": name]) { $1 }
            if let downSince { fields["downMs"] = .int(Int(((now - downSince) * 1000).rounded())) }
            downSince = nil
            return [Event(level: .notice, name: "mic.restored", fields: fields)]
        case .fallback(let reason), .unavailable(let reason):
            let lost = if case .unavailable = stats.state { true } else { false }
            let name = lost ? "mic.lost" : "mic.fallback"
            let same: Bool =
                switch last {
                case .unavailable: lost
                case .fallback: !lost
                default: false
                }
            guard !same else { return [] }
            if downSince == nil { downSince = now }
            return [Event(level: .warning, name: name, fields: counters.merging(["reason": .string(reason)]) { $1 })]
        }
    }
}
