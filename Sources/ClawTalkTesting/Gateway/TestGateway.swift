import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
public import Foundation

/// The project's own OpenClaw Gateway peer for tests: it speaks the real frames, enforces the
/// conformance checklist of protocol.md §18 and the talk fixtures of talk.md §11,
/// and rejects what the real gateway rejects (closed schemas, device proof, auth, pairing,
/// role allowlists, scopes, command policy).
///
/// Connections come in through ``accept(_:)`` (any ``TestGatewayLink``), ``connectInMemory()``
/// or ``dialer()``. Everything that crosses a connection is recorded (``recordedFrames(connection:)``)
/// and harness-relevant happenings are published as ``TestGatewayEvent``s. Time-based rules
/// (challenge `ts`, signature skew, request and token expiry) read the injected clock; tick and
/// invoke timers run on real time.
public actor TestGateway {
    /// Harness events, in order (single consumer; ``waitForEvent(timeout:where:)`` is the
    /// multi-waiter alternative).
    public nonisolated let events: AsyncStream<TestGatewayEvent>
    let eventSink: AsyncStream<TestGatewayEvent>.Continuation

    /// The current configuration (change with ``configure(_:)``).
    public internal(set) var configuration: TestGatewayConfiguration
    let clock: any TestGatewayClock
    let makeNonce: @Sendable () -> String
    let startedAtMs: Int64

    var connections: [Int: GatewayConnection] = [:]
    var nextConnectionId = 1
    var idCounters: [String: Int] = [:]
    var frames: [RecordedFrame] = []
    var eventLog: [TestGatewayEvent] = []
    /// When each entry of ``eventLog`` was published.
    var eventTimes: [ContinuousClock.Instant] = []
    var waiters: [Int: EventWaiter] = [:]
    var nextWaiterKey = 0

    var pairedDevices: [String: PairedDevice] = [:]
    var pendingPairings: [TestPairingRequest] = []
    var deviceTokens: [String: IssuedDeviceToken] = [:]
    var bootstrapTokens: [String: BootstrapToken] = [:]
    var approvedSurfaces: [String: ApprovedSurface] = [:]
    var capabilityRequests: [TestCapabilityRequest] = []

    var pendingInvokes: [String: PendingInvoke] = [:]
    var finishedInvokeIds: Set<String> = []

    var script: OperatorScript
    var queuedReplies: [String: [ScriptedReply]] = [:]
    var queuedChatRuns: [[ChatScriptStep]] = []
    var chatHistory: [String: [WireJSON]] = [:]
    var seenTranscriptEventIds: Set<String> = []
    var talkMode: (enabled: Bool, phase: String?) = (false, nil)
    var relaySessions: [String: TestRelaySession] = [:]
    var relaySegmenters: [String: RelaySpeechSegmenter] = [:]
    var realtimeSessions: [String: TestRealtimeSession] = [:]
    var voiceWakeTriggers: [String]
    var voiceWakeRouting: WireJSON
    var dialRequests: [GatewayDialRequest] = []
    var listener: TestGatewayListener?
    /// The gateway's own work: each connection's reader, paced replies, delayed answers and
    /// timers run as children of this group, not as loose tasks.
    let children = OwnedTaskGroup()
    /// Join codes served at `/j/<code>` on the listening port (read on the server's thread).
    public nonisolated let joinCodes: TestJoinCodes

    /// A gateway with the given configuration, operator script, clock and nonce source.
    public init(
        configuration: TestGatewayConfiguration = TestGatewayConfiguration(),
        script: OperatorScript = OperatorScript(), clock: any TestGatewayClock = SystemGatewayClock(),
        nonce: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        (events, eventSink) = AsyncStream.makeStream(of: TestGatewayEvent.self, bufferingPolicy: .unbounded)
        self.configuration = configuration
        self.script = script
        self.clock = clock
        makeNonce = nonce
        startedAtMs = clock.nowMs()
        joinCodes = TestJoinCodes(clock: clock)
        voiceWakeTriggers = script.voiceWakeTriggers
        voiceWakeRouting = script.voiceWakeRouting
        chatHistory = script.history
    }

    /// Changes the configuration; later connects and calls use the new values.
    public func configure(_ change: @Sendable (inout TestGatewayConfiguration) -> Void) {
        change(&configuration)
    }

    /// Changes the operator script (defaults for replies, triggers, talk config).
    public func updateScript(_ change: @Sendable (inout OperatorScript) -> Void) {
        change(&script)
    }

    // MARK: Connections

    /// Starts serving `link`: sends `connect.challenge {nonce, ts}` at once, then reads.
    /// Returns the connection id.
    @discardableResult
    public func accept(_ link: any TestGatewayLink) -> Int {
        let id = nextConnectionId
        nextConnectionId += 1
        let nonce = makeNonce()
        let ts = clock.nowMs()
        connections[id] = GatewayConnection(id: id, link: link, nonce: nonce, challengeTs: ts)
        emit(.opened(connection: id))
        sendEvent(id, "connect.challenge", ["nonce": .string(nonce), "ts": .integer(ts)])
        children.spawn {
            for await event in link.inbound { await self.receive(id, event) }
            await self.linkEnded(id)
        }
        return id
    }

    /// A fresh in-memory pair whose server end this gateway serves; returns the client end.
    public func connectInMemory() -> InMemorySocket {
        openInMemory().client
    }

    /// ``connectInMemory()`` plus the connection id the gateway assigned.
    public func openInMemory() -> (client: InMemorySocket, connection: Int) {
        let (client, server) = InMemorySocketPair.make()
        return (client, accept(server))
    }

    /// A ``GatewayDialer`` that connects every dial to this gateway in memory.
    public nonisolated func dialer() -> TestGatewayDialer {
        TestGatewayDialer(gateway: self)
    }

    /// The challenge nonce sent on `connection`.
    public func challengeNonce(connection: Int) -> String? {
        connections[connection]?.nonce
    }

    /// The admitted session of `connection` (nil before `hello-ok` or for unknown ids).
    public func session(connection: Int) -> TestGatewaySession? {
        connections[connection]?.session
    }

    /// Sessions of all open, established connections, oldest first.
    public var sessions: [TestGatewaySession] {
        connections.values.filter { $0.phase == .established }.sorted { $0.id < $1.id }.compactMap(\.session)
    }

    /// Closes `connection` from the gateway side.
    public func close(connection: Int, code: Int, reason: String) {
        closeConnection(connection, code: code, reason: reason)
    }

    /// Stops sending anything to `connection` (ticks, events, responses): its watchdog must fire.
    public func stall(connection: Int) {
        connections[connection]?.stalled = true
    }

    /// Sends again to a stalled connection.
    public func resume(connection: Int) {
        connections[connection]?.stalled = false
    }

    // MARK: Recorder and harness events

    /// Every frame received and sent, optionally for one connection only.
    public func recordedFrames(connection: Int? = nil) -> [RecordedFrame] {
        guard let connection else { return frames }
        return frames.filter { $0.connection == connection }
    }

    /// Every harness event so far.
    public var observedEvents: [TestGatewayEvent] { eventLog }

    /// Every harness event so far with the instant it was published, from index `start` of
    /// ``observedEvents`` on.
    public func timedEvents(from start: Int = 0) -> [TimedGatewayEvent] {
        let first = min(max(start, 0), eventLog.count)
        return (first..<eventLog.count).map { TimedGatewayEvent(event: eventLog[$0], at: eventTimes[$0]) }
    }

    /// The connection id of the `number`-th (1-based) `hello-ok` sent to a `role` client,
    /// already sent or within `timeout` (``eventually(within:_:)``).
    /// - Throws: ``TestGatewayError/timedOut(_:)`` when it is not sent in time.
    public nonisolated func connection(
        role: String = "node", number: Int = 1, timeout: Duration = .seconds(30)
    ) async throws -> Int {
        var found: Int?
        _ = await eventually(within: timeout) {
            let ids = await observedEvents.compactMap { event -> Int? in
                if case .connected(let id, role, _) = event { return id }
                return nil
            }
            if ids.count >= number { found = ids[number - 1] }
            return found != nil
        }
        guard let found else { throw TestGatewayError.timedOut("\(role) connection \(number)") }
        return found
    }

    /// The first event (already observed or future) matching `predicate`.
    /// - Throws: ``TestGatewayError/timedOut(_:)`` after `timeout`: generous (30 s), since a test
    ///   waits for an outcome and must not fail because the machine was busy (5 s did, once, for a
    ///   node's reconnect after a revoked token in a fresh-clone CI run, 2026-12-06).
    public func waitForEvent(
        timeout: Duration = .seconds(30), where predicate: @escaping @Sendable (TestGatewayEvent) -> Bool
    ) async throws -> TestGatewayEvent {
        if let hit = eventLog.first(where: predicate) { return hit }
        let key = nextWaiterKey
        nextWaiterKey += 1
        return try await withCheckedThrowingContinuation { continuation in
            waiters[key] = EventWaiter(predicate: predicate, continuation: continuation)
            children.spawn {
                try? await Task.sleep(for: timeout)
                await self.expireWaiter(key)
            }
        }
    }

    func expireWaiter(_ key: Int) {
        waiters.removeValue(forKey: key)?.continuation.resume(throwing: TestGatewayError.timedOut("gateway event"))
    }

    func emit(_ event: TestGatewayEvent) {
        eventLog.append(event)
        eventTimes.append(.now)
        eventSink.yield(event)
        for (key, waiter) in waiters where waiter.predicate(event) {
            waiters.removeValue(forKey: key)
            waiter.continuation.resume(returning: event)
        }
    }

    // MARK: Inbound

    func receive(_ id: Int, _ event: GatewaySocketEvent) {
        switch event {
        case .message(let data):
            guard let connection = connections[id], connection.phase != .closed else { return }
            let text = String(decoding: data, as: UTF8.self)
            record(id, .received, text)
            if connection.phase == .handshaking {
                handleHandshakeMessage(id, data: data)
            } else {
                handleEstablishedMessage(id, data: data)
            }
        case .closed(let code, let reason):
            markClosed(id, code: code, reason: reason)
        case .failed(let reason):
            markClosed(id, code: nil, reason: reason)
        }
    }

    func linkEnded(_ id: Int) {
        markClosed(id, code: nil, reason: "link ended")
    }

    /// Closes from the gateway side: close frame, then bookkeeping.
    func closeConnection(_ id: Int, code: Int, reason: String) {
        guard let connection = connections[id], connection.phase != .closed else { return }
        let clipped = Self.closeReason(reason)
        markClosed(id, code: code, reason: clipped)
        connection.link.close(code: code, reason: clipped)
    }

    func markClosed(_ id: Int, code: Int?, reason: String) {
        guard var connection = connections[id], connection.phase != .closed else { return }
        connection.phase = .closed
        connection.tickTask?.cancel()
        connection.tickTask = nil
        connections[id] = connection
        emit(.closed(connection: id, code: code, reason: reason))
        failInvokes(onConnection: id)
    }

    /// A WebSocket close reason: at most 123 UTF-8 bytes, cut on a character boundary.
    static func closeReason(_ reason: String) -> String {
        guard reason.utf8.count > 123 else { return reason }
        var out = ""
        for character in reason {
            if out.utf8.count + String(character).utf8.count > 123 { break }
            out.append(character)
        }
        return out
    }

    // MARK: Outbound

    func sendText(_ id: Int, _ text: String) {
        guard let connection = connections[id], connection.phase != .closed, !connection.stalled else { return }
        record(id, .sent, text)
        connection.link.send(text: text)
    }

    /// Keeps `text` in ``frames``, unless it carries audio and audio is not recorded
    /// (``TestGatewayConfiguration/recordsAudio``).
    private func record(_ id: Int, _ direction: RecordedFrame.Direction, _ text: String) {
        guard configuration.recordsAudio || !text.contains("\"audioBase64\"") else { return }
        frames.append(RecordedFrame(connection: id, direction: direction, text: text))
    }

    /// A directly addressed event (no `seq`).
    func sendEvent(_ id: Int, _ event: String, _ payload: WireJSON?) {
        sendText(id, EventFrame(event: event, payload: payload).encodedText())
    }

    /// A broadcast event on one connection (with the connection's next `seq`).
    func sendBroadcast(_ id: Int, _ event: String, _ payload: WireJSON?) {
        guard var connection = connections[id], connection.phase == .established, !connection.stalled else { return }
        let seq = connection.seq
        connection.seq += 1
        connections[id] = connection
        sendText(id, EventFrame(event: event, payload: payload, seq: seq).encodedText())
    }

    /// Broadcasts to every established session matching `filter`.
    func broadcast(_ event: String, _ payload: WireJSON?, to filter: (TestGatewaySession) -> Bool) {
        for id in connections.keys.sorted() {
            guard let session = connections[id]?.session, connections[id]?.phase == .established, filter(session)
            else { continue }
            sendBroadcast(id, event, payload)
        }
    }

    func respond(_ id: Int, _ requestId: String, _ payload: WireJSON?) {
        sendText(id, ResponseFrame(id: requestId, ok: true, payload: payload).encodedText())
    }

    func respondError(_ id: Int, _ requestId: String, _ error: ErrorShape) {
        sendText(id, ResponseFrame(id: requestId, ok: false, error: error).encodedText())
    }

    // MARK: Ids and time

    /// `prefix-N`, counting per prefix.
    func nextId(_ prefix: String) -> String {
        let next = (idCounters[prefix] ?? 0) + 1
        idCounters[prefix] = next
        return "\(prefix)-\(next)"
    }

    /// A random printable token with `prefix`.
    static func randomToken(_ prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return prefix + Base64URL.encode(bytes)
    }

    var nowMs: Int64 { clock.nowMs() }
}

/// A pending ``TestGateway/waitForEvent(timeout:where:)``.
struct EventWaiter {
    let predicate: @Sendable (TestGatewayEvent) -> Bool
    let continuation: CheckedContinuation<TestGatewayEvent, any Error>
}
