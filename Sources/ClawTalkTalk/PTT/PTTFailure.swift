public import ClawTalkProtocol

/// Why a push-to-talk command failed (talk.md §2.7). Each case maps to one wire error.
public enum PTTFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No capture device could be opened (`MICROPHONE_PERMISSION_REQUIRED`).
    case microphoneUnavailable(String)
    /// The capture device is held exclusively elsewhere (`MIC_BUSY`).
    case microphoneBusy(String)
    /// The local speech-to-text engine is missing or failed (`STT_UNAVAILABLE`).
    case speechToTextUnavailable(String)
    /// The start was aborted by a cancel (`PTT_CANCELLED`).
    case startCancelled
    /// The audio stack is still initializing, before any work (`NODE_NOT_READY`).
    case notReady(String)

    /// The failure for an error thrown by a seam: ``PTTFailure`` as is, ``TalkError`` by case,
    /// anything else as a microphone problem (the seams that throw open the microphone).
    public init(_ error: any Error) {
        switch error {
        case let failure as PTTFailure:
            self = failure
        case let talk as TalkError:
            switch talk {
            case .microphoneUnavailable(let hint): self = .microphoneUnavailable(hint)
            case .speechToTextUnavailable(let hint): self = .speechToTextUnavailable(hint)
            case .startCancelled: self = .startCancelled
            }
        default:
            self = .microphoneUnavailable(Self.oneLine("\(error)"))
        }
    }

    /// The `node.invoke.result` error (`UNAVAILABLE` or `NODE_NOT_READY`, message `<CODE>: <hint>`).
    public var nodeError: NodeError {
        switch self {
        case .microphoneUnavailable(let hint): .microphonePermissionRequired(hint)
        case .microphoneBusy(let hint): .micBusy(hint)
        case .speechToTextUnavailable(let hint): .sttUnavailable(hint)
        case .startCancelled: .pttCancelled
        case .notReady(let hint): .notReady(hint)
        }
    }

    /// The wire message, e.g. `MIC_BUSY: capture device is in use by another application`.
    public var description: String { nodeError.message }

    /// The first line of `text`, at most 200 characters.
    static func oneLine(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.count > 200 ? String(line.prefix(200)) : line
    }
}
