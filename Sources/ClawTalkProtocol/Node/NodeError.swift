import Foundation

/// The wire error of a failed invoke: `error {code, message}` of `node.invoke.result`
/// (protocol.md §10.2–§10.3, talk.md §2.7). Messages start with a code
/// (`"<CODE>: <hint>"`). The result schema is closed: there is no `retryable` or
/// `retryAfterMs`.
public struct NodeError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// `error.code`, raw.
    public var code: String
    /// `error.message`, `"<CODE>: <hint>"`.
    public var message: String

    /// An error with the given code and message.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// An error with a known code and message.
    public init(_ code: NodeErrorCode, message: String) {
        self.init(code: code.rawValue, message: message)
    }

    /// ``code`` as a known value.
    public var knownCode: NodeErrorCode? {
        NodeErrorCode(rawValue: code)
    }

    /// The code at the start of ``message`` (before the first `": "`), e.g. `MIC_BUSY`.
    public var messageCode: String? {
        guard let range = message.range(of: ": ") else { return nil }
        return String(message[..<range.lowerBound])
    }

    /// `code: message`.
    public var description: String {
        "\(code): \(message)"
    }

    /// `INVALID_REQUEST` "INVALID_REQUEST: unsupported command <cmd>" (command clipped).
    public static func unsupportedCommand(_ command: String) -> NodeError {
        NodeError(.invalidRequest, message: "INVALID_REQUEST: unsupported command \(command.clipped(128))")
    }

    /// `INVALID_REQUEST` "INVALID_REQUEST: <reason>", e.g. for unparseable params.
    public static func invalidRequest(_ reason: String) -> NodeError {
        NodeError(.invalidRequest, message: "INVALID_REQUEST: \(reason)")
    }

    /// `UNAVAILABLE` "UNAVAILABLE: node busy, retry" (more than 8 concurrent invokes).
    public static let busy = NodeError(.unavailable, message: "UNAVAILABLE: node busy, retry")

    /// `UNAVAILABLE` "UNAVAILABLE: node invoke timed out" (local deadline).
    public static let timedOut = NodeError(.unavailable, message: "UNAVAILABLE: node invoke timed out")

    /// `NODE_NOT_READY` "NODE_NOT_READY: <hint>" (default: audio engine starting).
    public static func notReady(_ hint: String = "audio engine starting") -> NodeError {
        NodeError(.nodeNotReady, message: "NODE_NOT_READY: \(hint)")
    }

    /// `UNAVAILABLE` "MICROPHONE_PERMISSION_REQUIRED: <hint>": no capture device can be opened.
    public static func microphonePermissionRequired(
        _ hint: String = "no capture device could be opened"
    ) -> NodeError {
        NodeError(.unavailable, message: "MICROPHONE_PERMISSION_REQUIRED: \(hint)")
    }

    /// `UNAVAILABLE` "MIC_BUSY: <hint>": the device is held exclusively elsewhere.
    public static func micBusy(_ hint: String = "capture device is in use by another application") -> NodeError {
        NodeError(.unavailable, message: "MIC_BUSY: \(hint)")
    }

    /// `UNAVAILABLE` "STT_UNAVAILABLE: <hint>": the local STT engine is missing or failed.
    public static func sttUnavailable(_ hint: String = "speech recognition engine is not available") -> NodeError {
        NodeError(.unavailable, message: "STT_UNAVAILABLE: \(hint)")
    }

    /// `UNAVAILABLE` "PTT_CANCELLED: push-to-talk start was cancelled".
    public static let pttCancelled = NodeError(.unavailable, message: "PTT_CANCELLED: push-to-talk start was cancelled")
}
