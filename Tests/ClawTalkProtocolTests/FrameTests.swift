import Foundation
import Testing

@testable import ClawTalkProtocol

@Suite("Frames")
struct FrameTests {
    @Test("decodes a request, response and event from text")
    func decodesKinds() throws {
        let request = try GatewayFrame.decode(text: #"{"type":"req","id":"a","method":"connect","params":{"x":1}}"#)
        #expect(request == .request(RequestFrame(id: "a", method: "connect", params: ["x": 1])))

        let response = try GatewayFrame.decode(text: #"{"type":"res","id":"a","ok":true,"payload":{"y":2}}"#)
        #expect(response == .response(ResponseFrame(id: "a", ok: true, payload: ["y": 2])))

        let event = try GatewayFrame.decode(
            text:
                #"{"type":"event","event":"tick","payload":{"ts":5},"seq":7,"stateVersion":{"presence":1,"health":2}}"#)
        guard case .event(let frame) = event else {
            Issue.record("expected an event")
            return
        }
        #expect(frame.event == "tick")
        #expect(frame.name == .tick)
        #expect(frame.seq == 7)
        #expect(frame.stateVersion == StateVersion(presence: 1, health: 2))
        #expect(TickEvent(json: frame.payload).ts == 5)
    }

    @Test("binary and text messages decode identically")
    func binaryEqualsText() throws {
        let text = #"{"type":"event","event":"connect.challenge","payload":{"nonce":"n","ts":1}}"#
        let fromText = try GatewayFrame.decode(text: text)
        let fromData = try GatewayFrame.decode(Data(text.utf8))
        let fromBytes = try GatewayFrame.decode(Array(text.utf8))
        #expect(fromText == fromData)
        #expect(fromText == fromBytes)
    }

    @Test("unknown frame types are reported, not thrown", arguments: ["cancel", "hello", ""])
    func unknownType(type: String) throws {
        let frame = try GatewayFrame.decode(text: #"{"type":"\#(type)","id":"x"}"#)
        #expect(frame == .unknown(type: type))
    }

    @Test(
        "malformed frames throw malformedFrame with a short reason",
        arguments: [
            ("@not json", "unexpected character"),
            ("[1,2]", "expected a JSON object"),
            (#"{"id":"x"}"#, "missing frame type"),
            (#"{"type":5}"#, "missing frame type"),
            (#"{"type":"res","ok":true}"#, "response without id"),
            (#"{"type":"res","id":"x"}"#, "response without ok"),
            (#"{"type":"event","payload":{}}"#, "event without name"),
            (#"{"type":"req","id":"","method":"m"}"#, "request without id"),
            (#"{"type":"req","id":"x"}"#, "request without method"),
        ])
    func malformed(text: String, reason: String) {
        #expect {
            try GatewayFrame.decode(text: text)
        } throws: { error in
            guard case ProtocolError.malformedFrame(let message) = error else { return false }
            return message.hasPrefix(reason)
        }
    }

    @Test("malformed-frame reasons never contain payload contents")
    func malformedNoSecrets() {
        let secret = "dtok_SECRET_123"
        for text in [#"{"type":"res","payload":{"deviceToken":"\#(secret)"}}"#, #"{"auth":"\#(secret)""#] {
            do {
                _ = try GatewayFrame.decode(text: text)
                Issue.record("expected a throw")
            } catch {
                #expect(!error.description.contains(secret))
            }
        }
    }

    @Test("lenient fields: bad seq, null payload, non-object error, unknown keys")
    func lenientFields() throws {
        let event = try GatewayFrame.decode(text: #"{"type":"event","event":"x","seq":-1,"payload":null,"extra":[1]}"#)
        #expect(event == .event(EventFrame(event: "x")))
        let event2 = try GatewayFrame.decode(text: #"{"type":"event","event":"x","seq":"3","stateVersion":7}"#)
        #expect(event2 == .event(EventFrame(event: "x")))
        let response = try GatewayFrame.decode(text: #"{"type":"res","id":"r","ok":false,"error":"boom"}"#)
        #expect(response == .response(ResponseFrame(id: "r", ok: false)))
    }

    @Test("request frames encode with fixed key order and omit absent params")
    func requestEncoding() throws {
        #expect(RequestFrame(id: "1", method: "m").encodedText() == #"{"type":"req","id":"1","method":"m"}"#)
        let frame = RequestFrame(id: "1", method: "m", params: ["b": 1, "a": "x"])
        #expect(frame.encodedText() == #"{"type":"req","id":"1","method":"m","params":{"b":1,"a":"x"}}"#)
        // Round trip through the inbound decoder.
        #expect(try GatewayFrame.decode(text: frame.encodedText()) == .request(frame))
    }

    @Test("encoding Encodable params is deterministic")
    func deterministic() throws {
        let params = ChatSendParams(sessionKey: "main", message: "hi", idempotencyKey: "k")
        let first = try RequestFrame(id: "1", method: "chat.send", encoding: params).encodedText()
        let second = try RequestFrame(id: "1", method: "chat.send", encoding: params).encodedText()
        #expect(first == second)
        #expect(
            first.contains(
                #""params":{"idempotencyKey":"k","message":"hi","sessionKey":"main","thinking":"low","timeoutMs":30000}"#
            ))
    }

    @Test("size-checked encoding refuses oversize frames")
    func sizeLimit() throws {
        let frame = RequestFrame(id: "1", method: "m", params: .string(String(repeating: "a", count: 100)))
        let size = frame.encodedText().utf8.count
        #expect(try frame.encodedText(maxBytes: size) == frame.encodedText())
        #expect(throws: ProtocolError.frameTooLarge(bytes: size, limit: size - 1)) {
            try frame.encodedText(maxBytes: size - 1)
        }
    }

    @Test("response and event frames round-trip")
    func roundTrips() throws {
        let response = ResponseFrame(
            id: "r", ok: false,
            error: ErrorShape(
                code: "UNAVAILABLE", message: "m", details: ["reason": "x"], retryable: true, retryAfterMs: 500))
        #expect(try GatewayFrame.decode(text: response.encodedText()) == .response(response))
        let event = EventFrame(
            event: "chat", payload: ["runId": "r"], seq: 3, stateVersion: StateVersion(presence: 1, health: nil))
        #expect(try GatewayFrame.decode(text: event.encodedText()) == .event(event))
    }

    @Test("request ids are lowercase UUID v4 and unique")
    func requestIds() {
        let ids = (0..<64).map { _ in WireID.make() }
        #expect(Set(ids).count == ids.count)
        for id in ids { #expect(WireID.isLowercaseUUIDv4(id), "\(id)") }
        #expect(WireID.isLowercaseUUIDv4(RequestFrame(method: "m").id))
        #expect(!WireID.isLowercaseUUIDv4("9D3C1C2E-5F7A-4B1E-9A55-0C1D2E3F4A5B"))
        #expect(!WireID.isLowercaseUUIDv4("9d3c1c2e-5f7a-1b1e-9a55-0c1d2e3f4a5b"))
        #expect(!WireID.isLowercaseUUIDv4("9d3c1c2e-5f7a-4b1e-1a55-0c1d2e3f4a5b"))
    }

    @Test("shutdown payload: number, null or absent restartExpectedMs")
    func shutdown() throws {
        let withNumber = try ShutdownEvent(json: ["reason": "update", "restartExpectedMs": 4000])
        #expect(withNumber.restartExpectedMs == 4000)
        #expect(withNumber.firstReconnectDelayMs == 4000)
        let withNull = try ShutdownEvent(json: ["reason": "update", "restartExpectedMs": .null])
        #expect(withNull.restartExpectedMs == nil)
        #expect(withNull.firstReconnectDelayMs == 500)
        let absent = try ShutdownEvent(json: [:])
        #expect(absent.reason == nil)
        #expect(absent.firstReconnectDelayMs == 500)
    }
}
