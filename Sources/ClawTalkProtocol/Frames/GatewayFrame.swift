public import Foundation

/// Any frame read from the socket. Text and binary messages decode the same way (the
/// Gateway accepts both, and the official Swift client sends binary).
public enum GatewayFrame: Sendable, Hashable {
    /// A request (clients send these; a test gateway reads them).
    case request(RequestFrame)
    /// A response to one of our requests.
    case response(ResponseFrame)
    /// A pushed event.
    case event(EventFrame)
    /// A frame with a `type` this module does not know (e.g. `cancel`); ignore it.
    case unknown(type: String)

    /// Decodes one frame from the UTF-8 bytes of a WebSocket message.
    /// - Throws: ``ProtocolError/malformedFrame(_:)`` with a short reason when the bytes are
    ///   not a JSON object with a string `type`, or a known frame lacks required fields.
    public static func decode(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> GatewayFrame {
        let json: WireJSON
        do {
            json = try WireJSON(parsing: bytes)
        } catch {
            throw .malformedFrame(error.reason)
        }
        return try decode(json: json)
    }

    /// Decodes one frame from `Data` (a binary message).
    public static func decode(_ data: Data) throws(ProtocolError) -> GatewayFrame {
        let json: WireJSON
        do {
            json = try WireJSON(parsing: data)
        } catch {
            throw .malformedFrame(error.reason)
        }
        return try decode(json: json)
    }

    /// Decodes one frame from a text message.
    public static func decode(text: String) throws(ProtocolError) -> GatewayFrame {
        try decode(Array(text.utf8))
    }

    /// Classifies an already parsed frame object.
    public static func decode(json: WireJSON) throws(ProtocolError) -> GatewayFrame {
        guard let object = json.objectValue else {
            throw .malformedFrame("expected a JSON object, got \(json.typeName)")
        }
        guard let type = object["type"]?.stringValue else { throw .malformedFrame("missing frame type") }
        switch type {
        case RequestFrame.type: return .request(try RequestFrame(json: json))
        case ResponseFrame.type: return .response(try ResponseFrame(json: json))
        case EventFrame.type: return .event(try EventFrame(json: json))
        default: return .unknown(type: type.clipped(64))
        }
    }
}

extension ProtocolError {
    /// The reason text without the case prefix.
    var reason: String {
        switch self {
        case .malformedFrame(let reason), .invalidJSON(let reason), .invalidPayload(let reason),
            .encodingFailed(let reason):
            reason
        case .frameTooLarge:
            description
        }
    }
}
