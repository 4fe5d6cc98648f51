/// One `talk.event` of a relay session, read leniently (talk.md §9.1). Current upstream keys
/// events by `transcriptionSessionId` and types them `ready | partial | transcript | error |
/// inputAudio` (`{transcriptionSessionId, type:"transcript", text, final:true}`); older builds
/// used `{relaySessionId, type, …, talkEvent?}` with `talkEvent.type` `transcript.delta` or
/// `transcript.done`. Both are read. Events of other sessions (PTT `capture.*` events carry
/// neither key) read as nil.
public enum TalkRelayEvent: Sendable, Hashable {
    /// The session is ready for audio.
    case ready(relaySessionId: String)
    /// A transcript of `role` (`user` for the speaker); `final` for `transcript.done`.
    case transcript(relaySessionId: String, role: String, text: String, final: Bool)
    /// The relay reported an error.
    case error(relaySessionId: String, message: String)
    /// The session ended on the gateway's side.
    case closed(relaySessionId: String)
    /// Any other relay event (`inputAudio` acknowledgements, audio, tool calls, marks).
    case other(relaySessionId: String, type: String)

    /// Reads a `talk.event` payload; nil when it is not a relay event.
    public init?(json: WireJSON?) {
        guard let object = json?.objectValue else { return nil }
        let nested = object["talkEvent"]
        guard
            let id = object["transcriptionSessionId"]?.nonEmptyStringValue
                ?? object["relaySessionId"]?.nonEmptyStringValue
                ?? nested?["transcriptionSessionId"]?.nonEmptyStringValue
                ?? (object["type"] == nil ? nil : nested?["sessionId"]?.nonEmptyStringValue)
        else { return nil }
        let type = object["type"]?.stringValue ?? nested?["type"]?.stringValue ?? ""
        let nestedType = nested?["type"]?.stringValue
        switch type {
        case "ready", "session.ready":
            self = .ready(relaySessionId: id)
        case "partial":
            let text = object["text"]?.stringValue ?? nested?["payload"]?["text"]?.stringValue ?? ""
            self = .transcript(
                relaySessionId: id, role: object["role"]?.stringValue ?? "user", text: text, final: false)
        case "transcript", "transcript.delta", "transcript.done":
            let text = object["text"]?.stringValue ?? nested?["payload"]?["text"]?.stringValue ?? ""
            let final =
                object["final"]?.boolValue ?? nested?["final"]?.boolValue
                ?? (type == "transcript.done" || nestedType == "transcript.done")
            self = .transcript(
                relaySessionId: id, role: object["role"]?.stringValue ?? "user", text: text, final: final)
        case "error", "session.error":
            let message =
                object["message"]?.stringValue ?? object["error"]?.stringValue
                ?? nested?["payload"]?["message"]?.stringValue ?? "relay error"
            self = .error(relaySessionId: id, message: message)
        case "close", "closed", "session.closed":
            self = .closed(relaySessionId: id)
        default:
            self = .other(relaySessionId: id, type: type)
        }
    }

    /// The relay session the event belongs to.
    public var relaySessionId: String {
        switch self {
        case .ready(let id), .transcript(let id, _, _, _), .error(let id, _), .closed(let id), .other(let id, _): id
        }
    }
}

/// `talk.catalog` result, read leniently: whether the gateway can relay transcription.
/// Upstream answers `{transcription:{ready, providers, activeProvider}, realtime, speech, modes, …}`.
public struct TalkCatalog: Sendable, Hashable {
    /// Whether a transcription relay session can be created.
    public var transcriptionReady: Bool
    /// The transcription provider in use, when reported.
    public var transcriptionProvider: String?
    /// Whether a realtime provider is ready (`realtime.ready`, a bare `realtime: true`, or
    /// `modes` listing `realtime`; talk.md §9.2).
    public var realtimeReady: Bool
    /// Whether the relay transport is offered (`realtime.transports` or `transports` lists
    /// `gateway-relay`).
    public var offersGatewayRelay: Bool

    /// Reads the payload: `transcription.ready == true` (or a bare `transcription: true`, or
    /// `modes` listing `transcription`) means supported.
    public init(json: WireJSON?) {
        let transcription = json?["transcription"]
        let listed = json?["modes"]?.stringArrayValue?.contains("transcription") ?? false
        transcriptionReady = transcription?["ready"]?.boolValue ?? transcription?.boolValue ?? listed
        transcriptionProvider = transcription?["activeProvider"]?.stringValue
        let realtime = json?["realtime"]
        let modes = json?["modes"]?.stringArrayValue ?? []
        realtimeReady = realtime?["ready"]?.boolValue ?? realtime?.boolValue ?? modes.contains("realtime")
        let transports = realtime?["transports"]?.stringArrayValue ?? json?["transports"]?.stringArrayValue ?? []
        offersGatewayRelay = transports.contains("gateway-relay")
    }
}
