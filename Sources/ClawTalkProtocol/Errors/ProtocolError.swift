/// Failures of the wire layer: unreadable frames or payloads, and frames too large to send.
/// Messages name the problem and where it is, never the payload's contents (they may hold
/// tokens or transcripts).
public enum ProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An inbound message is not a usable frame (bad JSON, not an object, required frame field
    /// missing).
    case malformedFrame(String)
    /// Bytes or text are not valid JSON.
    case invalidJSON(String)
    /// A payload or params object lacks a required field or has the wrong shape.
    case invalidPayload(String)
    /// An outbound frame exceeds a size limit (bytes, limit in bytes).
    case frameTooLarge(bytes: Int, limit: Int)
    /// A value could not be encoded as JSON.
    case encodingFailed(String)

    /// One line, no secrets.
    public var description: String {
        switch self {
        case .malformedFrame(let reason): "malformed frame: \(reason)"
        case .invalidJSON(let reason): "invalid JSON: \(reason)"
        case .invalidPayload(let reason): "invalid payload: \(reason)"
        case .frameTooLarge(let bytes, let limit): "frame too large: \(bytes) bytes (limit \(limit))"
        case .encodingFailed(let reason): "encoding failed: \(reason)"
        }
    }
}
