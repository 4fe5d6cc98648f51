/// How an item handed to ``PlaybackController`` ended.
public enum PlaybackOutcome: Sendable, CustomStringConvertible {
    /// Everything was played; `playedSeconds` is the item's length.
    case finished(playedSeconds: Double, timing: PlaybackTiming)
    /// Stopped while playing; `interruptedAt` is the seconds actually heard: what was written
    /// minus what the sound server still held at the stop (talk.md §5.5 / §7.6).
    case interrupted(interruptedAt: Double, timing: PlaybackTiming)
    /// Dropped from the queue before it started (``PlaybackController/stop()``, cancellation).
    case cancelled
    /// Could not be played: ``AudioDeviceError`` (sink open or write), ``PlaybackError``
    /// (watchdog, format, closed) or the error a stream item's source threw.
    case failed(any Error, timing: PlaybackTiming)

    /// The timing report, except for ``cancelled``.
    public var timing: PlaybackTiming? {
        switch self {
        case .finished(_, let timing), .interrupted(_, let timing), .failed(_, let timing): timing
        case .cancelled: nil
        }
    }

    /// Seconds heard: the full length, the interruption point, or what a failed item managed to play.
    public var playedSeconds: Double {
        switch self {
        case .finished(let seconds, _): seconds
        case .interrupted(let seconds, _): seconds
        case .failed(_, let timing): timing.writtenSeconds
        case .cancelled: 0
        }
    }

    /// The failure, if the item failed.
    public var error: (any Error)? {
        if case .failed(let error, _) = self { return error }
        return nil
    }

    /// One line for logs, for example `interrupted at 1.23 s`.
    public var description: String {
        switch self {
        case .finished(let seconds, _): "finished (\(Self.format(seconds)) s)"
        case .interrupted(let seconds, _): "interrupted at \(Self.format(seconds)) s"
        case .cancelled: "cancelled"
        case .failed(let error, _): "failed: \(error)"
        }
    }

    private static func format(_ seconds: Double) -> String {
        let hundredths = Int((seconds * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
