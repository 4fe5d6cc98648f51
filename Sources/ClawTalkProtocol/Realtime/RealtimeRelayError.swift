/// Bad input from a realtime relay (talk.md §9.2): each is logged once per ``kind`` and skipped,
/// and Talk keeps running. Decoding raises the first five; the output state machine raises the
/// last two, since only it knows which turns and marks it has seen.
public enum RealtimeRelayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `audioBase64` is not base64.
    case malformedBase64(type: String)
    /// A `type` clawtalk does not know.
    case unknownType(String)
    /// Audio in a format other than the session's output (a stated encoding or rate that differs,
    /// or a pcm16 chunk of an odd byte count).
    case audioFormat(String)
    /// An audio chunk longer than the playback queue can hold.
    case oversizedChunk(bytes: Int, limit: Int)
    /// A required field is missing or of the wrong type.
    case missingField(type: String, field: String)
    /// A `turnId` the node never saw (or already ended), for an event that needs a known one.
    case unknownTurn(String)
    /// A `mark` for a turn the node never saw.
    case unknownMark(name: String, turnId: String)

    /// The kind, for logging once per kind.
    public var kind: String {
        switch self {
        case .malformedBase64: "malformed_base64"
        case .unknownType: "unknown_type"
        case .audioFormat: "audio_format"
        case .oversizedChunk: "oversized_chunk"
        case .missingField: "missing_field"
        case .unknownTurn: "unknown_turn"
        case .unknownMark: "unknown_mark"
        }
    }

    /// What was wrong, without the payload's audio or text.
    public var description: String {
        switch self {
        case .malformedBase64(let type): "\(type): audioBase64 is not base64"
        case .unknownType(let type): "unknown event type '\(type.prefix(64))'"
        case .audioFormat(let detail): "audio of another format: \(detail)"
        case .oversizedChunk(let bytes, let limit): "audio chunk of \(bytes) bytes (limit \(limit))"
        case .missingField(let type, let field): "\(type): missing or invalid '\(field)'"
        case .unknownTurn(let turnId): "unknown turnId '\(turnId.prefix(64))'"
        case .unknownMark(let name, let turnId): "mark '\(name.prefix(64))' of unknown turn '\(turnId.prefix(64))'"
        }
    }
}
