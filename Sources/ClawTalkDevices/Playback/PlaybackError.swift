public import ClawTalkAudio

/// Why ``PlaybackController`` failed an item, besides ``AudioDeviceError`` (the sink could not be
/// opened or written) and errors thrown by a stream item's source.
public enum PlaybackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sink did not start playing within `milliseconds` of the audio being ready (talk
    /// contract talk.md §7.6: 650 ms); the device is probably suspended, stalled or gone.
    case startTimedOut(milliseconds: Int)
    /// Playback did not end within its duration plus slack (talk.md §7.6: duration + 2 s,
    /// at most 5 min); `limitSeconds` is the limit that was exceeded.
    case overran(limitSeconds: Double)
    /// A stream item delivered a buffer in a different format than it declared.
    case formatMismatch(expected: AudioFormat, received: AudioFormat)
    /// A buffer's sample count is not a whole number of frames.
    case partialFrame(samples: Int, channels: Int)
    /// The controller was closed before the item could play.
    case closed

    /// One line for logs and error messages.
    public var description: String {
        switch self {
        case .startTimedOut(let milliseconds):
            "playback did not start within \(milliseconds) ms of the audio being ready (sink suspended or stalled?)"
        case .overran(let limit):
            "playback did not finish within its duration plus slack (\(Self.seconds(limit)) s); stopped"
        case .formatMismatch(let expected, let received):
            "stream buffer is \(received), but the item was declared as \(expected)"
        case .partialFrame(let samples, let channels):
            "buffer of \(samples) samples is not a whole number of \(channels)-channel frames"
        case .closed:
            "the playback controller is closed"
        }
    }

    private static func seconds(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
