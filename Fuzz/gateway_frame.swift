// libFuzzer harness for the gateway frame reader: GatewayFrame.decode
// (Sources/ClawTalkProtocol/Frames/GatewayFrame.swift) over WireJSON's parser
// (WireJSON+Parsing.swift), then the payload readers the node and operator sessions apply to
// received frames (hello-ok, connect.challenge, node.invoke.request, chat, agent, talk…), including
// the realtime relay's talk.event decoder (RealtimeRelayEvent, talk.md §9.2).
//
// Input: one option byte (bit 0: decode as Data, as binary messages are, instead of bytes),
// then one WebSocket message. Checks besides traps and sanitizer findings: bytes and Data decode
// the same; a rejected message throws ProtocolError.malformedFrame; a decoded request, response or
// event encodes (wireJSON) to text that decodes to the same frame; a parsed JSON value encodes to
// text that parses to the same value; a realtime relay event either decodes (audio within the chunk
// limit, whole pcm16 samples) or throws a RealtimeRelayError with a kind.
import ClawTalkProtocol
import Foundation

/// libFuzzer's entry point: runs one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let asData = data[0] & 1 != 0
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))

    // The JSON layer alone: parse → encode → parse is the identity (semantic equality).
    if let json = try? WireJSON(parsing: bytes) {
        let text = json.encodedBytes()
        guard let again = try? WireJSON(parsing: text) else { fatalError("encoded JSON does not parse") }
        precondition(again == json, "JSON round trip changed the value")
    }

    let frame: GatewayFrame
    do {
        frame = asData ? try GatewayFrame.decode(Data(bytes)) : try GatewayFrame.decode(bytes)
    } catch {
        guard case .malformedFrame = error else { fatalError("rejected with \(error), not malformedFrame") }
        let other = Result { () throws(ProtocolError) in
            asData ? try GatewayFrame.decode(bytes) : try GatewayFrame.decode(Data(bytes))
        }
        precondition((try? other.get()) == nil, "bytes and Data disagree")
        return 0
    }
    precondition((try? (asData ? GatewayFrame.decode(bytes) : GatewayFrame.decode(Data(bytes)))) == frame)

    let encoded: WireJSON
    switch frame {
    case .request(let request):
        encoded = request.wireJSON
        readPayloads(request.params)
    case .response(let response):
        encoded = response.wireJSON
        readPayloads(response.payload)
        _ = try? HelloOk(json: response.payload)
    case .event(let event):
        encoded = event.wireJSON
        readPayloads(event.payload)
    case .unknown(let type):
        precondition(type.count <= 65, "unknown type not clipped")
        return 0
    }
    let again: GatewayFrame
    do {
        again = try GatewayFrame.decode(encoded.encodedBytes())
    } catch {
        fatalError("re-encoded frame rejected: \(error)")
    }
    precondition(again == frame, "frame round trip changed the frame")
    return 0
}

/// Every reader of a received payload; each either reads or throws ProtocolError (typed throws).
private func readPayloads(_ payload: WireJSON?) {
    _ = try? ConnectChallenge(json: payload)
    _ = try? HelloOk(json: payload)
    _ = try? NodeInvokeRequest(json: payload)
    _ = try? NodeInvokeCancel(json: payload)
    _ = try? ChatEvent(json: payload)
    _ = try? AgentEvent(json: payload)
    _ = try? TalkSessionCreated(json: payload)
    _ = try? TalkModeEvent(json: payload)
    _ = try? TalkSpeakResult(json: payload)
    _ = try? TalkConfig(json: payload)
    _ = try? VoiceWakeTriggers(json: payload)
    _ = try? VoiceWakeRouting(payload: payload)
    _ = TalkRelayEvent(json: payload)
    _ = TalkCatalog(json: payload)
    _ = TickEvent(json: payload)
    _ = try? RealtimeSessionCreated(json: payload)
    _ = TalkRealtimeConfig(json: payload)
    _ = TalkSessionCancelStatus(json: payload)
    _ = RealtimeRelayEvent.relaySessionId(of: payload)
    readRealtimeEvent(payload)
    _ = NodeEventResult(json: payload)
    _ = AgentEventData(json: payload)
    _ = ChatSendResult(json: payload)
    if let payload {
        _ = try? ErrorShape(json: payload)
        _ = try? ShutdownEvent(json: payload)
        _ = (try? ErrorShape(json: payload)).map(ConnectRejection.init)
    }
}

/// The realtime relay decoder: a known event or a typed error of a kind (talk.md §9.2).
private func readRealtimeEvent(_ payload: WireJSON?) {
    let limit = 30_720
    for format in [RealtimeAudioFormat.pcm16At24k, RealtimeAudioFormat(encoding: "pcm16", sampleRateHz: 16_000)] {
        do {
            let event = try RealtimeRelayEvent(json: payload, format: format, maximumChunkBytes: limit)
            if case .audio(let samples, let turnId) = event {
                precondition(samples.count * 2 <= limit, "audio chunk over the limit")
                precondition(!turnId.isEmpty, "audio without a turn")
            }
        } catch {
            precondition(!error.kind.isEmpty && !error.description.isEmpty, "error without a kind")
        }
    }
}
