public import Foundation

/// One request on the control socket: a single JSON line `{"command":"ptt.start"}` (push-to-talk)
/// or `{"command":"talk.on"}` (Talk mode).
public struct ControlRequest: Sendable, Hashable, Codable {
    /// The local push-to-talk and Talk mode commands.
    public enum Command: String, Sendable, Hashable, Codable, CaseIterable {
        /// Begin capturing (key pressed).
        case start = "ptt.start"
        /// Finalize and send (key released).
        case stop = "ptt.stop"
        /// `start` when idle, else `stop`.
        case toggle = "ptt.toggle"
        /// Discard the capture.
        case cancel = "ptt.cancel"
        /// One utterance ended by silence.
        case once = "ptt.once"
        /// Turn Talk mode on.
        case talkOn = "talk.on"
        /// Turn Talk mode off.
        case talkOff = "talk.off"
        /// Turn Talk mode on when off, else off.
        case talkToggle = "talk.toggle"
        /// Report Talk mode's phase.
        case talkStatus = "talk.status"

        /// Whether this is a Talk mode command.
        public var isTalk: Bool { rawValue.hasPrefix("talk.") }
    }

    /// What to do.
    public var command: Command

    /// A request for `command`.
    public init(command: Command) {
        self.command = command
    }

    /// The request line (JSON and a newline).
    public func line() -> Data {
        var data = (try? JSONEncoder().encode(self)) ?? Data()
        data.append(0x0A)
        return data
    }

    /// Reads a request line; nil for anything else.
    public static func parse(_ line: Data) -> ControlRequest? {
        try? JSONDecoder().decode(ControlRequest.self, from: line)
    }
}
