import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// The harness surface: event stream, frame recorder, dialer and setup-code fixtures (37).
@Suite(.timeLimit(.minutes(1))) struct RecorderTests {
    @Test func theEventStreamAndRecorderFollowAConnection() async throws {
        let (gateway, _) = Fixture.gateway()
        let result = try await connected(gateway)
        result.client.socket.close(code: 1000, reason: "bye")
        var seen: [TestGatewayEvent] = []
        for await event in gateway.events {
            seen.append(event)
            if case .closed = event { break }
        }
        let id = result.client.connection
        #expect(
            seen == [
                .opened(connection: id), .connected(connection: id, role: "node", deviceId: Fixture.deviceId),
                .closed(connection: id, code: 1000, reason: "bye"),
            ])
        let frames = await gateway.recordedFrames(connection: id)
        #expect(frames.map(\.direction) == [.sent, .received, .sent, .sent, .sent])
        #expect(frames[1].method == "connect")
        #expect(frames[2].type == "res")
        #expect(frames[3].event == "voicewake.changed")
    }

    @Test func timedEventsCarryTheInstantEachEventWasPublishedInOrder() async throws {
        let (gateway, _) = Fixture.gateway()
        let before = ContinuousClock.now
        let result = try await connected(gateway)
        // The gateway publishes `connected` on its own task, possibly after the client has its
        // hello-ok: the mark is taken once the gateway has published it.
        _ = try await gateway.waitForEvent(timeout: .seconds(30)) { if case .connected = $0 { true } else { false } }
        let connectedAt = ContinuousClock.now
        result.client.socket.close(code: 1000, reason: "bye")
        _ = try await gateway.waitForEvent(timeout: .seconds(30)) { if case .closed = $0 { true } else { false } }
        let timed = await gateway.timedEvents()
        #expect(timed.map(\.event) == (await gateway.observedEvents))
        #expect(timed.first.map { $0.at >= before } == true)
        #expect(zip(timed, timed.dropFirst()).allSatisfy { $0.at <= $1.at })
        // Each carries the instant it was published: opened and connected before the mark, closed
        // after it (not the instant the list was read).
        #expect(timed.filter { $0.at <= connectedAt }.count >= 2)
        #expect(timed.last.map { $0.at > connectedAt } == true)
        #expect(await gateway.timedEvents(from: 1).map(\.event) == Array(timed.dropFirst().map(\.event)))
        #expect(await gateway.timedEvents(from: 99).isEmpty)
    }

    @Test func theDialerConnectsInMemoryAndKeepsTheRequests() async throws {
        let (gateway, _) = Fixture.gateway()
        let socket = try await gateway.dialer().dial(GatewayDialRequest(url: "ws://127.0.0.1:18789/openclaw-gw"))
        var iterator = socket.inbound.makeAsyncIterator()
        guard case .message(let data) = await iterator.next() else {
            Issue.record("no challenge")
            return
        }
        #expect(try WireJSON(parsing: data)["event"] == "connect.challenge")
        #expect(await gateway.dials.map(\.url) == ["ws://127.0.0.1:18789/openclaw-gw"])
    }

    @Test(arguments: TestSetupCodeVariant.allCases)
    func setupCodeFixturesParseOnlyWhenValid(variant: TestSetupCodeVariant) async throws {  // 37
        let (gateway, _) = Fixture.gateway()
        let code = await gateway.setupCode(variant)
        let now = Date(timeIntervalSince1970: Double(Fixture.time) / 1000)
        let parsed = Result { () throws(SetupCodeError) -> SetupCode in try SetupCode.parse(code, now: now) }
        switch parsed {
        case .success(let setup):
            #expect(variant.isValid)
            let token = try #require(setup.bootstrapToken)
            #expect(await gateway.bootstrapTokenIsLive(token))
        case .failure(let error):
            switch (variant, error) {
            case (.expired, .expired), (.fingerprintWithPlaintext, .fingerprintWithPlaintext),
                (.oversize, .codeTooLong), (.nonLocalPlaintext, .insecureRemote):
                break
            default:
                Issue.record("\(variant) failed with \(error)")
            }
        }
    }
}
