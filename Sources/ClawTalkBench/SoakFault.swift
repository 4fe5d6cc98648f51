import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation

/// The soak's faults, one a cycle in this order (issue 16).
enum SoakFault: String, CaseIterable, Sendable {
    case gatewayRestart = "gateway restart (1012)"
    case tickStall = "stalled ticks"
    case tokenRevocation = "device token revoked, then approved again"
    case startupWindow = "closed startup window (1013)"
    case soundServerRestart = "sound server restarted"
    case sourceRemoved = "capture source and speaker removed and added back"
    case whisperKilled = "Whisper server killed"
    case corruptClip = "corrupt talk.speak clip"
    case oversizedFrame = "oversized frame"

    /// The short name `--fault` takes.
    var name: String {
        switch self {
        case .gatewayRestart: "restart"
        case .tickStall: "ticks"
        case .tokenRevocation: "token"
        case .startupWindow: "startup"
        case .soundServerRestart: "sound"
        case .sourceRemoved: "source"
        case .whisperKilled: "whisper"
        case .corruptClip: "clip"
        case .oversizedFrame: "oversized"
        }
    }

    /// Whether the fault takes the node's capture source away (it must log `mic.restored`).
    var takesTheMicrophone: Bool {
        self == .soundServerRestart || self == .sourceRemoved
    }

    /// Whether the fault ends the node's socket of `role` (the node must then open a new one).
    func ends(role: String) -> Bool {
        switch self {
        case .gatewayRestart, .tickStall, .tokenRevocation, .startupWindow: true
        case .oversizedFrame: role == "node"
        case .soundServerRestart, .sourceRemoved, .whisperKilled, .corruptClip: false
        }
    }
}

extension SoakBench {
    /// Injects `fault` and waits until the node is back: connected on both roles, its sound
    /// devices or speech server in use again. Returns the seconds that took, or nil when the node
    /// did not come back within 120 s.
    func inject(_ fault: SoakFault, rig: Rig) async throws -> Double? {
        let began = ContinuousClock.now
        let gateway = rig.gateway
        let before = await Self.liveConnections(gateway)
        let microphoneRestored = rig.count("mic.restored")
        switch fault {
        case .gatewayRestart:
            await gateway.shutdown()
            await gateway.stopListening()
            try await Task.sleep(for: .seconds(2))
            _ = try await gateway.listen(port: rig.port, tls: rig.tls)
        case .tickStall:
            let live = await Self.liveConnections(gateway)
            for connection in live { await gateway.stall(connection: connection.id) }
            // The node's watchdog closes after 2 × tickIntervalMs without a frame and dials again.
            let stalled = Set(live.map(\.id))
            _ = await BenchTool.wait(seconds: 60) {
                await Self.liveConnections(gateway).contains { !stalled.contains($0.id) && $0.role == "node" }
            }
            for connection in live { await gateway.resume(connection: connection.id) }
        case .tokenRevocation:
            for connection in await Self.liveConnections(gateway) {
                await gateway.revokeDeviceToken(deviceId: connection.deviceId, role: connection.role)
            }
        case .startupWindow:
            await gateway.configure { $0.startingUp = true }
            for connection in await Self.liveConnections(gateway) {
                await gateway.close(connection: connection.id, code: 1012, reason: "service restart")
            }
            try await Task.sleep(for: .seconds(5))
            await gateway.configure { $0.startingUp = false }
        case .soundServerRestart:
            rig.loopback.close()
            try await rig.sound.restart()
            rig.loopback = try LoopbackRig()
            await rig.loopback.warmUp()
        case .sourceRemoved:
            rig.loopback.close()
            try await Task.sleep(for: .seconds(3))
            rig.loopback = try LoopbackRig()
            await rig.loopback.warmUp()
        case .whisperKilled:
            let ready = rig.count("stt.server.ready")
            for child in ProcessSampler.children(of: rig.run.processIdentifier)
            where ProcessSampler.read(child).map({ ServiceBench.part($0.name) == "stt server" }) == true {
                kill(child, SIGKILL)
            }
            _ = await BenchTool.wait(seconds: 180) { rig.count("stt.server.ready") > ready }
        case .corruptClip:
            // The next reply's clip is garbage: the node must say it with espeak-ng instead (the
            // next cycle's wake command checks that a reply is heard).
            await gateway.enqueueReply(.clip(.unplayable()), for: "talk.speak")
        case .oversizedFrame:
            // Over the node's receive limit (the larger of policy.maxPayload and 25 MiB: gateway
            // protocol.md §4.2), so the node must close 1009 and dial again.
            let padding = String(repeating: "x", count: GatewayLimits.receiveLimitBeforeHello + 65_536)
            for connection in await Self.liveConnections(gateway) where connection.role == "node" {
                await gateway.send(event: "soak.padding", payload: .string(padding), connection: connection.id)
            }
        }
        // Back means the node hears again (its `mic.restored`): what is said before that is
        // nobody's to deliver.
        if fault.takesTheMicrophone,
            await !BenchTool.wait(seconds: 60, until: { rig.count("mic.restored") > microphoneRestored })
        {
            progress("bench soak: \(fault.rawValue): the node's microphone did not come back within 60 s\n")
            return nil
        }
        // The sockets the fault ends must be replaced by new ones, not merely be still listed.
        let replaced = Set(before.filter { fault.ends(role: $0.role) }.map(\.id))
        do {
            try await waitConnected(rig, replacing: replaced)
        } catch {
            progress("bench soak: \(fault.rawValue): \(error)\n")
            return nil
        }
        return began.duration(to: .now).inSeconds
    }

    /// One established connection.
    struct Connection: Sendable {
        var id: Int
        var role: String
        var deviceId: String
    }

    /// The established connections, from the gateway's events (connected and not yet closed).
    static func liveConnections(_ gateway: TestGateway) async -> [Connection] {
        var live: [Int: Connection] = [:]
        for event in await gateway.observedEvents {
            switch event {
            case .connected(let id, let role, let deviceId):
                live[id] = Connection(id: id, role: role, deviceId: deviceId)
            case .closed(let id, _, _): live[id] = nil
            default: break
            }
        }
        return live.values.sorted { $0.id < $1.id }
    }

    /// Waits (≤ 120 s) until the node is connected on both roles by sockets other than
    /// `replacing`; throws when it does not come back.
    func waitConnected(_ rig: Rig, replacing: Set<Int> = []) async throws {
        let back = await BenchTool.wait(seconds: 120) {
            let live = await Self.liveConnections(rig.gateway).filter { !replacing.contains($0.id) }
            return Set(live.map(\.role)).isSuperset(of: ["node", "operator"])
        }
        guard back else {
            throw BenchTool.Failure(description: "the node did not reconnect within 120 s: \(rig.text.suffix(2000))")
        }
    }

    /// The node's id (its device id on the node role).
    func nodeId(_ rig: Rig) async throws -> String {
        guard let node = await Self.liveConnections(rig.gateway).last(where: { $0.role == "node" }) else {
            throw BenchTool.Failure(description: "no node connection")
        }
        return node.deviceId
    }
}
