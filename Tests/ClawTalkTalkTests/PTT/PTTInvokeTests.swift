import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkTalk

/// `talk.ptt.*` end to end: the project's test gateway invokes the commands on a real
/// ``NodeSession`` (in-memory sockets) whose handlers drive a ``PTTController`` over fakes.
@Suite("talk.ptt.* invokes", .timeLimit(.minutes(1)))
struct PTTInvokeTests {
    /// A temporary state directory.
    final class Folder: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ct-ptt-\(UUID().uuidString)").path
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// A connected node whose handlers are registered.
    struct Node {
        let gateway: TestGateway
        let nodeId: String
        let capturing: FakeCapturing
        let delivery: RecordingDelivery
        let controller: PTTController
    }

    func withNode(
        _ scripts: [CaptureScript], readiness: @escaping @Sendable () async -> String? = { nil },
        _ body: (Node) async throws -> Void
    ) async throws {
        var configuration = TestGatewayConfiguration()
        configuration.auth = .token("shared")
        configuration.autoApproveLoopback = true
        configuration.requireCapabilityApproval = false
        configuration.automaticTicks = false
        let gateway = TestGateway(configuration: configuration)
        let folder = Folder()
        let identity = try DeviceIdentity(seed: Array(0...31), createdAtMs: 0)
        let store = GatewayStore(directory: try StateDirectory(path: folder.path))
        let connection = GatewayConnection(
            configuration: GatewayConnectionConfiguration(
                endpoint: try GatewayEndpoint.parse("ws://127.0.0.1:18789"),
                role: .node(NodeSurface(caps: [.talk], commands: PTTCommandHandlers.commands)),
                client: ClientMetadata(version: "0.1.0", displayName: "Desk", instanceId: "inst-1", locale: "en-US"),
                sharedToken: "shared"),
            dialer: gateway.dialer(), identity: identity, store: store, jitter: .none)
        let session = NodeSession(connection: connection, sendsPresenceOnConnect: false)
        let capturing = FakeCapturing()
        for script in scripts { capturing.append(script) }
        let delivery = RecordingDelivery()
        let controller = PTTController(
            capturing: capturing, transcriber: FakeTranscriber(), delivery: delivery, speech: LeaseRecorder())
        await PTTCommandHandlers(controller: controller, readiness: readiness).register(on: session)
        let connectionTask = Task { await connection.run() }
        let sessionTask = Task { await session.run() }
        defer {
            sessionTask.cancel()
            connectionTask.cancel()
        }
        #expect(await eventually { await session.isConnected })
        #expect(await gateway.sessions.first?.declaredCommands == PTTCommandHandlers.commands)
        try await body(
            Node(
                gateway: gateway, nodeId: identity.deviceId, capturing: capturing, delivery: delivery,
                controller: controller))
        await connection.stop()
    }

    /// The `payloadJSON` of a successful invoke as an object.
    static func payload(_ outcome: TestInvokeOutcome) throws -> [String: WireJSON] {
        guard case .ok(let payloadJSON?, _) = outcome else { throw WaitError(description: "not ok: \(outcome)") }
        return try #require(try WireJSON(parsing: payloadJSON).objectValue?.dictionary)
    }

    /// The `talk.event` of `type`, waited for.
    static func talkEvent(_ gateway: TestGateway, type: String) async throws -> WireJSON {
        let event = try await gateway.waitForEvent(timeout: .seconds(30)) { event in
            if case .talkEvent(let json) = event { return json["type"]?.stringValue == type }
            return false
        }
        guard case .talkEvent(let json) = event else { throw WaitError(description: "no talk.event \(type)") }
        return json
    }

    static let params: [TestInvokeParams] = [
        .null, .json("{}"), .absent, .json(""), .json(#"{"captureId":"ignored","sessionKey":"main","extra":[1]}"#),
    ]

    @Test(arguments: params)
    func onceIsQueuedWellInsideTheTimeoutWhateverTheParams(params: TestInvokeParams) async throws {
        try await withNode([.utterance(speech: 1.0, until: 2.5)]) { node in
            let started = ContinuousClock.now
            let outcome = await node.gateway.invoke(
                nodeId: node.nodeId, command: "talk.ptt.once", params: params, timeoutMs: 15_000)
            // Milliseconds normally (the fake capture's frames come at once); the bound only has to
            // tell it from a once that ran into its 12 s hard cap.
            #expect(ContinuousClock.now - started < .seconds(10))
            let payload = try Self.payload(outcome)
            #expect(Set(payload.keys) == ["captureId", "transcript", "status"])
            #expect(payload["status"] == "queued")
            #expect(payload["transcript"] == "what's on my calendar")
            let captureId = try #require(payload["captureId"]?.stringValue)
            #expect(captureId != "ignored")
            #expect(captureId == captureId.lowercased() && UUID(uuidString: captureId) != nil)
            #expect(node.delivery.texts == ["what's on my calendar"])
            let event = try await Self.talkEvent(node.gateway, type: "capture.once")
            #expect(event["sessionId"] == .string("node:\(node.nodeId):talk:\(captureId)"))
            #expect(event["final"] == true)
            #expect(event["payload"]?["status"] == "queued")
            #expect(event["payload"]?["transcript"] == "what's on my calendar")
        }
    }

    @Test func startThenStopOverInvokes() async throws {
        try await withNode([.utterance(speech: 0.5, until: 1)]) { node in
            let start = try Self.payload(await node.gateway.invoke(nodeId: node.nodeId, command: "talk.ptt.start"))
            #expect(Set(start.keys) == ["captureId"])
            let captureId = try #require(start["captureId"]?.stringValue)
            let again = try Self.payload(await node.gateway.invoke(nodeId: node.nodeId, command: "talk.ptt.start"))
            #expect(again["captureId"] == .string(captureId), "idempotent start")
            let startedEvent = try await Self.talkEvent(node.gateway, type: "capture.started")
            #expect(startedEvent["sessionId"] == .string("node:\(node.nodeId):talk:\(captureId)"))
            #expect(startedEvent["final"] == false)
            let stop = try Self.payload(await node.gateway.invoke(nodeId: node.nodeId, command: "talk.ptt.stop"))
            #expect(
                stop == ["captureId": .string(captureId), "transcript": "what's on my calendar", "status": "queued"])
            let idle = try Self.payload(await node.gateway.invoke(nodeId: node.nodeId, command: "talk.ptt.cancel"))
            #expect(idle["status"] == "idle")
            #expect(idle["transcript"] == .null)
            #expect(idle["captureId"] != .string(captureId))
        }
    }

    @Test func invokeCancelOfARunningOnceCancelsItsCapture() async throws {
        try await withNode([.silence(1)]) { node in
            let once = Task {
                await node.gateway.invoke(nodeId: node.nodeId, command: "talk.ptt.once", timeoutMs: 15_000)
            }
            let controller = node.controller
            #expect(
                await eventually {
                    if case .capturing = await controller.state { return true }
                    return false
                })
            let invokeId = try #require(await node.gateway.pendingInvokeIds.first)
            await node.gateway.cancelInvoke(invokeId: invokeId, nodeId: node.nodeId)
            let payload = try Self.payload(await once.value)
            #expect(payload["status"] == "cancelled")
            #expect(payload["transcript"] == .null)
            #expect(await eventually { node.capturing.captures.map(\.outcome) == ["cancelled"] })
            #expect(node.delivery.texts.isEmpty)
        }
    }

    /// talk.md §2.7: the gateway restarts (shutdown, close 1012) during a capture it
    /// started; nothing is being said, so the capture ends at once; silence is never sent to the
    /// recogniser, so nothing is delivered; after the reconnect a `stop` answers that result
    /// (`empty`).
    @Test func aGatewayRestartEndsItsCaptureAndALaterStopGetsTheResult() async throws {
        try await withNode([.silence(1)]) { node in
            let start = try Self.payload(await node.gateway.invoke(nodeId: node.nodeId, command: "talk.ptt.start"))
            let captureId = try #require(start["captureId"]?.stringValue)
            let first = try #require(await node.gateway.sessions.first?.connection)
            await node.gateway.shutdown()
            let controller = node.controller
            #expect(await eventually { await controller.state == .idle }, "ended without a stop")
            #expect(node.capturing.captures.map(\.outcome) == ["finished"])
            #expect(node.delivery.texts.isEmpty)
            #expect(
                await eventually { (await node.gateway.sessions.first?.connection ?? first) != first },
                "reconnected")
            let stop = try Self.payload(await node.gateway.invoke(nodeId: node.nodeId, command: "talk.ptt.stop"))
            #expect(stop == ["captureId": .string(captureId), "transcript": .null, "status": "empty"])
            #expect(node.delivery.texts.isEmpty)
        }
    }

    @Test func captureFailuresAreTheContractErrors() async throws {
        try await withNode([]) { node in
            node.capturing.failNext(TalkError.microphoneUnavailable("no capture device could be opened"))
            let outcome = await node.gateway.invoke(nodeId: node.nodeId, command: "talk.ptt.start")
            #expect(
                outcome
                    == .failed(
                        code: "UNAVAILABLE",
                        message: "MICROPHONE_PERMISSION_REQUIRED: no capture device could be opened"))
        }
    }

    @Test func notReadyIsAnsweredBeforeAnyWork() async throws {
        try await withNode([.silence(1)], readiness: { "audio engine starting" }) { node in
            let outcome = await node.gateway.invoke(nodeId: node.nodeId, command: "talk.ptt.once")
            #expect(outcome == .failed(code: "NODE_NOT_READY", message: "NODE_NOT_READY: audio engine starting"))
            #expect(node.capturing.captures.isEmpty)
        }
    }
}
