/// Failures of the talk features that callers act on.
public enum TalkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No capture device could be opened.
    case microphoneUnavailable(String)
    /// The speech-to-text engine is missing or failed.
    case speechToTextUnavailable(String)
    /// A push-to-talk start was cancelled before it began capturing.
    case startCancelled

    /// One line, no secrets.
    public var description: String {
        switch self {
        case .microphoneUnavailable(let hint): "microphone unavailable: \(hint)"
        case .speechToTextUnavailable(let hint): "speech-to-text unavailable: \(hint)"
        case .startCancelled: "push-to-talk start was cancelled"
        }
    }
}
