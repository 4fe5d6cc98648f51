import Foundation

/// One `talk.event` of a realtime relay session (talk.md §9.2 item 3), decoded strictly: a
/// payload of the session is either a known event with its required fields or a
/// ``RealtimeRelayError``. Fields are read from the payload, else from its `payload` object
/// (some gateways nest them); unknown extra fields are ignored.
public enum RealtimeRelayEvent: Sendable, Hashable {
    /// The provider session is ready for audio (again, after a replacement).
    case ready
    /// Reply audio of `turnId`, decoded to samples in the session's output format.
    case audio(samples: [Int16], turnId: String)
    /// The provider sent all of `turnId`'s audio.
    case audioDone(turnId: String)
    /// Drop what is queued and stop output.
    case clear
    /// Acknowledge `name` once the audio queued before it has played.
    case mark(name: String, turnId: String?)
    /// A transcript of the user or the assistant.
    case transcript(role: Role, text: String, final: Bool)
    /// A tool call the gateway expects an answer to (clawtalk answers with an error).
    case toolCall(callId: String, name: String, argumentsJson: String)
    /// The gateway acknowledged appended audio (informational).
    case inputAudio
    /// The provider session was replaced (a voice switch reconnects it): a reply in progress ends.
    case replaced
    /// The relay reported an error: a relay failure.
    case error(message: String)
    /// The relay closed the session: a relay failure unless the node closed it.
    case close(reason: String?)

    /// Who a transcript is of.
    public enum Role: String, Sendable, Hashable {
        /// The person at the microphone.
        case user
        /// The model.
        case assistant
    }

    /// The relay session a `talk.event` payload belongs to (`relaySessionId`, else the nested
    /// `talkEvent.sessionId`); nil for payloads of no relay session (push-to-talk `capture.*`).
    public static func relaySessionId(of json: WireJSON?) -> String? {
        guard let object = json?.objectValue else { return nil }
        return object["relaySessionId"]?.nonEmptyStringValue ?? object["talkEvent"]?["sessionId"]?.nonEmptyStringValue
    }

    /// Decodes a payload of a session whose output is `format`; audio chunks over
    /// `maximumChunkBytes` (decoded) are refused.
    public init(json: WireJSON?, format: RealtimeAudioFormat, maximumChunkBytes: Int) throws(RealtimeRelayError) {
        guard let object = json?.objectValue else { throw .missingField(type: "talk.event", field: "type") }
        let nested = object["talkEvent"]
        guard let type = object["type"]?.stringValue ?? nested?["type"]?.stringValue else {
            throw .missingField(type: "talk.event", field: "type")
        }
        let inner = object["payload"]?.objectValue ?? nested?["payload"]?.objectValue ?? [:]
        func field(_ key: String) -> WireJSON? { object[key] ?? inner[key] }
        func string(_ key: String) throws(RealtimeRelayError) -> String {
            guard let value = field(key)?.nonEmptyStringValue else { throw .missingField(type: type, field: key) }
            return value
        }
        switch type {
        case "ready", "session.ready":
            self = .ready
        case "audio":
            let turnId = try string("turnId")
            self = .audio(
                samples: try Self.samples(field("audioBase64"), field: field, format: format, limit: maximumChunkBytes),
                turnId: turnId)
        case "audioDone":
            self = .audioDone(turnId: try string("turnId"))
        case "clear":
            self = .clear
        case "mark":
            self = .mark(name: try string("name"), turnId: field("turnId")?.nonEmptyStringValue)
        case "transcript", "partial":
            guard let role = field("role")?.stringValue.flatMap(Role.init(rawValue:)) else {
                throw .missingField(type: type, field: "role")
            }
            guard let text = field("text")?.stringValue else { throw .missingField(type: type, field: "text") }
            self = .transcript(
                role: role, text: text, final: type == "transcript" && field("final")?.boolValue != false)
        case "toolCall":
            let arguments = field("argumentsJson")?.stringValue ?? field("arguments")?.encodedString() ?? "{}"
            self = .toolCall(callId: try string("callId"), name: try string("name"), argumentsJson: arguments)
        case "inputAudio":
            self = .inputAudio
        case "session.replaced", "replaced":
            self = .replaced
        case "error", "session.error":
            self = .error(
                message: field("message")?.stringValue ?? field("error")?.stringValue ?? "relay error")
        case "close", "closed", "session.closed":
            self = .close(reason: field("reason")?.stringValue)
        default:
            throw .unknownType(type)
        }
    }

    /// The chunk's samples: base64 of pcm16 LE in `format` (a stated `encoding` or
    /// `sampleRateHz` must match it), an even byte count, at most `limit` bytes.
    private static func samples(
        _ value: WireJSON?, field: (String) -> WireJSON?, format: RealtimeAudioFormat, limit: Int
    ) throws(RealtimeRelayError) -> [Int16] {
        guard let text = value?.stringValue else { throw .missingField(type: "audio", field: "audioBase64") }
        if let encoding = field("encoding")?.stringValue ?? field("outputEncoding")?.stringValue,
            encoding.lowercased() != format.encoding
        {
            throw .audioFormat("encoding \(encoding.prefix(32)), session \(format)")
        }
        if let rate = field("sampleRateHz")?.intValue ?? field("outputSampleRateHz")?.intValue,
            rate != format.sampleRateHz
        {
            throw .audioFormat("\(rate) Hz, session \(format)")
        }
        // 4 base64 characters per 3 bytes: refuse before decoding a huge string.
        if text.utf8.count / 4 * 3 > limit + 2 { throw .oversizedChunk(bytes: text.utf8.count / 4 * 3, limit: limit) }
        guard let data = Data(base64Encoded: text) else { throw .malformedBase64(type: "audio") }
        guard data.count <= limit else { throw .oversizedChunk(bytes: data.count, limit: limit) }
        guard data.count % 2 == 0 else { throw .audioFormat("odd byte count \(data.count) for \(format)") }
        return data.withUnsafeBytes { raw in
            (0..<(data.count / 2)).map {
                Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))
            }
        }
    }
}
