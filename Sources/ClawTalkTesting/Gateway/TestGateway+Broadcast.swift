public import ClawTalkProtocol

/// How `shutdown.restartExpectedMs` is sent (protocol.md §16).
public enum RestartExpectation: Sendable, Equatable {
    /// A number of milliseconds.
    case ms(Int)
    /// `null`.
    case null
    /// Key absent.
    case absent
}

/// Gateway pushes (checklist 23, 33; talk.md §11.4–§11.5): ticks, shutdown, wake
/// triggers and routing, Talk mode and arbitrary events.
extension TestGateway {
    func startTicks(_ id: Int) {
        guard configuration.automaticTicks else { return }
        let interval = max(1, configuration.policy.tickIntervalMs)
        connections[id]?.tickTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(interval))
                guard !Task.isCancelled, let self else { return }
                await self.sendTick(connection: id)
            }
        }
    }

    /// Sends `tick {ts}` (a broadcast, with `seq`) to one connection.
    public func sendTick(connection: Int) {
        sendBroadcast(connection, "tick", ["ts": .integer(nowMs)])
    }

    /// Sends `tick {ts}` to every established connection.
    public func sendTick() {
        for id in connections.keys.sorted() { sendTick(connection: id) }
    }

    /// `shutdown {reason, restartExpectedMs}` to every established socket, then close 1012
    /// `service restart` on all sockets; in-flight invokes end ``TestInvokeOutcome/disconnected``.
    public func shutdown(reason: String = "gateway restarting", restartExpectedMs: RestartExpectation = .ms(1_000)) {
        var payload: WireObject = ["reason": .string(reason)]
        switch restartExpectedMs {
        case .ms(let value): payload["restartExpectedMs"] = .integer(Int64(value))
        case .null: payload["restartExpectedMs"] = .null
        case .absent: break
        }
        for id in connections.keys.sorted() where connections[id]?.phase != .closed {
            sendBroadcast(id, "shutdown", .object(payload))
            closeConnection(id, code: 1012, reason: "service restart")
        }
    }

    /// Broadcasts any event to every established session of `role` (nil: all).
    public func broadcast(event: String, payload: WireJSON?, role: GatewayRole? = nil) {
        broadcast(event, payload) { role == nil || $0.role == role?.rawValue }
    }

    /// Sends a directly addressed event (no `seq`) on one connection.
    public func send(event: String, payload: WireJSON?, connection: Int) {
        sendEvent(connection, event, payload)
    }

    /// Sets the global wake list (normalized as the gateway does) and pushes
    /// `voicewake.changed {triggers}` to operators and nodes.
    public func setVoiceWakeTriggers(_ triggers: [String]) {
        voiceWakeTriggers = VoiceWakeTriggers.normalize(triggers)
        broadcast("voicewake.changed", ["triggers": .array(voiceWakeTriggers.map(WireJSON.string))]) { _ in true }
    }

    /// The current global wake list.
    public var currentVoiceWakeTriggers: [String] { voiceWakeTriggers }

    /// Replaces the wake routing config and pushes `voicewake.routing.changed {config}`.
    public func setVoiceWakeRouting(_ config: WireJSON) {
        voiceWakeRouting = config
        broadcast("voicewake.routing.changed", ["config": config]) { _ in true }
    }

    /// Sets Talk mode and broadcasts `talk.mode {enabled, phase|null, ts}` to operators.
    public func setTalkMode(enabled: Bool, phase: String? = nil) {
        talkMode = (enabled, phase)
        let payload: WireJSON = [
            "enabled": .bool(enabled), "phase": phase.map(WireJSON.string) ?? .null, "ts": .integer(nowMs),
        ]
        broadcast("talk.mode", payload, to: \.isOperator)
    }

    /// The current Talk mode state.
    public var currentTalkMode: (enabled: Bool, phase: String?) { talkMode }
}
