import ClawTalkProtocol
public import Foundation

/// The answer on the control socket, one JSON line: `{"ok":true,"captureId":…,"status":…}`
/// (`status` `started` for a start, else a `talk.ptt.*` status with `transcript`, `null` when
/// none), or `{"ok":false,"error":"<CODE>: <hint>"}`. Talk mode commands answer
/// `{"ok":true,"enabled":…,"status":"<phase>"}` (`idle`, `listening`, `thinking`, `speaking`).
public struct ControlResponse: Sendable, Hashable, Codable {
    /// Whether the command succeeded.
    public var ok: Bool
    /// The capture's id.
    public var captureId: String?
    /// `started`, or `queued`, `empty`, `offline`, `idle`, `cancelled`, `busy`.
    public var status: String?
    /// The trimmed transcript (stop, cancel, once).
    public var transcript: String?
    /// Whether ``transcript`` is part of the answer (then it is written, as `null` when nil).
    public var hasTranscript: Bool
    /// `<CODE>: <hint>` when not ok.
    public var error: String?
    /// Talk mode commands: whether Talk mode is on.
    public var enabled: Bool?

    /// A successful start.
    public static func started(_ captureId: String) -> ControlResponse {
        ControlResponse(ok: true, captureId: captureId, status: "started", transcript: nil, hasTranscript: false)
    }

    /// A failure with `message`.
    public static func failure(_ message: String) -> ControlResponse {
        ControlResponse(ok: false, captureId: nil, status: nil, transcript: nil, hasTranscript: false, error: message)
    }

    /// A Talk mode answer: on or off, and the phase.
    public static func talk(enabled: Bool, phase: String) -> ControlResponse {
        ControlResponse(
            ok: true, captureId: nil, status: phase, transcript: nil, hasTranscript: false, enabled: enabled)
    }

    /// A response with the given fields.
    public init(
        ok: Bool, captureId: String?, status: String?, transcript: String?, hasTranscript: Bool, error: String? = nil,
        enabled: Bool? = nil
    ) {
        self.ok = ok
        self.captureId = captureId
        self.status = status
        self.transcript = transcript
        self.hasTranscript = hasTranscript
        self.error = error
        self.enabled = enabled
    }

    /// Reads the fields (a present `transcript` key, even `null`, sets ``hasTranscript``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ok = try container.decode(Bool.self, forKey: .ok)
        captureId = try container.decodeIfPresent(String.self, forKey: .captureId)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        hasTranscript = container.contains(.transcript)
        transcript = try container.decodeIfPresent(String.self, forKey: .transcript)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
    }

    /// Writes the present fields; `transcript` as `null` when it belongs to the answer but is nil.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ok, forKey: .ok)
        try container.encodeIfPresent(captureId, forKey: .captureId)
        try container.encodeIfPresent(status, forKey: .status)
        if hasTranscript { try container.encode(transcript, forKey: .transcript) }
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(enabled, forKey: .enabled)
    }

    private enum CodingKeys: String, CodingKey {
        case ok, captureId, status, transcript, error, enabled
    }

    /// The response line (JSON with sorted keys and a newline).
    public func line() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = (try? encoder.encode(self)) ?? Data(#"{"error":"cannot encode the answer","ok":false}"#.utf8)
        data.append(0x0A)
        return data
    }

    /// Reads a response line; nil for anything else.
    public static func parse(_ line: Data) -> ControlResponse? {
        try? JSONDecoder().decode(ControlResponse.self, from: line)
    }
}
