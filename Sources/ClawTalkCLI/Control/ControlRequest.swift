import Foundation

/// One request on the control socket: a single JSON line `{"command":"ptt.start"}`.
struct ControlRequest: Sendable, Hashable, Codable {
    /// The local push-to-talk commands.
    enum Command: String, Sendable, Hashable, Codable, CaseIterable {
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
    }

    /// What to do.
    var command: Command

    /// The request line (JSON and a newline).
    func line() -> Data {
        var data = (try? JSONEncoder().encode(self)) ?? Data()
        data.append(0x0A)
        return data
    }

    /// Reads a request line; nil for anything else.
    static func parse(_ line: Data) -> ControlRequest? {
        try? JSONDecoder().decode(ControlRequest.self, from: line)
    }
}
