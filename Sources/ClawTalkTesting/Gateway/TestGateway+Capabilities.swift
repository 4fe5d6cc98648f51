import ClawTalkProtocol

/// Capability approval and command policy of protocol.md §8.4 and §13 (checklist 29–30):
/// a command is dispatched only when declared, approved and allowlisted; `talk.ptt.*` are
/// allowlisted for a node with cap `talk` or any declared `talk.*` command; deny wins.
extension TestGateway {
    /// The gateway allowlist for a declared surface.
    func commandAllowlist(caps: [String], commands: [String]) -> Set<String> {
        var allowed = Set(configuration.platformDefaultCommands)
        let hasTalkSurface = caps.contains(NodeCapability.talk.rawValue) || commands.contains { $0.hasPrefix("talk.") }
        if hasTalkSurface { allowed.formUnion(TalkCommand.allCases.map(\.rawValue)) }
        allowed.formUnion(configuration.allowCommands)
        allowed.subtract(configuration.denyCommands)
        return allowed
    }

    /// Declared ∩ allowlisted ∩ approved (when approval is required).
    func effectiveCommands(nodeId: String, caps: [String], commands: [String]) -> Set<String> {
        let declared = Set(commands.map { DeviceProofVerifier.jsTrim($0) }.filter { !$0.isEmpty })
        var effective = declared.intersection(commandAllowlist(caps: caps, commands: commands))
        if configuration.requireCapabilityApproval {
            effective.formIntersection(approvedSurfaces[nodeId]?.commands ?? [])
        }
        return effective
    }

    /// Why `command` would not be dispatched to `session`, or nil when it would.
    func dispatchRefusal(_ session: TestGatewaySession, command: String) -> String? {
        if !session.declaredCommands.contains(command) { return "command not declared by the node" }
        if !commandAllowlist(caps: session.caps, commands: session.declaredCommands).contains(command) {
            return "command not allowlisted"
        }
        if !session.effectiveCommands.contains(command) { return "command not approved" }
        return nil
    }

    /// A declared surface wider than the approved one creates (or reuses) a pending
    /// capability request; approved commands keep working meanwhile.
    func reconcileSurface(nodeId: String, caps: [String], commands: [String]) {
        guard configuration.requireCapabilityApproval else { return }
        let approved = approvedSurfaces[nodeId] ?? ApprovedSurface(caps: [], commands: [])
        let declared = ApprovedSurface(caps: Set(caps), commands: Set(commands))
        guard !declared.caps.isSubset(of: approved.caps) || !declared.commands.isSubset(of: approved.commands) else {
            return
        }
        if capabilityRequests.contains(where: {
            $0.nodeId == nodeId && Set($0.caps) == declared.caps && Set($0.commands) == declared.commands
        }) {
            return
        }
        capabilityRequests.removeAll { $0.nodeId == nodeId }
        let request = TestCapabilityRequest(
            requestId: nextId("n"), nodeId: nodeId, caps: caps, commands: commands, createdAtMs: nowMs)
        capabilityRequests.append(request)
        broadcast(
            "node.pair.requested",
            [
                "requestId": .string(request.requestId), "nodeId": .string(nodeId),
                "caps": .array(caps.map(WireJSON.string)), "commands": .array(commands.map(WireJSON.string)),
                "ts": .integer(nowMs),
            ], to: \.isOperator)
        emit(.capabilityRequested(requestId: request.requestId, nodeId: nodeId))
    }

    /// Pending capability-approval requests (they do not expire).
    public var pendingCapabilityRequests: [TestCapabilityRequest] { capabilityRequests }

    /// Approves a capability request (`openclaw nodes approve <id>`): the requested surface is
    /// added to the approved one. Live sockets change only with
    /// ``TestGatewayConfiguration/capabilityApprovalAppliesLive``.
    /// - Throws: ``TestGatewayError/unknownRequest(_:)``.
    public func approveCapabilities(requestId: String) throws(TestGatewayError) {
        guard let request = capabilityRequests.first(where: { $0.requestId == requestId }) else {
            throw .unknownRequest(requestId)
        }
        capabilityRequests.removeAll { $0.requestId == requestId }
        var surface = approvedSurfaces[request.nodeId] ?? ApprovedSurface(caps: [], commands: [])
        surface.caps.formUnion(request.caps)
        surface.commands.formUnion(request.commands)
        approvedSurfaces[request.nodeId] = surface
        if configuration.capabilityApprovalAppliesLive {
            for (id, connection) in connections {
                guard let session = connection.session, session.isNode, session.nodeId == request.nodeId else {
                    continue
                }
                connections[id]?.session?.effectiveCommands = effectiveCommands(
                    nodeId: session.nodeId, caps: session.caps, commands: session.declaredCommands)
            }
        }
        let notice: WireJSON = [
            "requestId": .string(requestId), "nodeId": .string(request.nodeId), "decision": "approved",
            "ts": .integer(nowMs),
        ]
        let notifyNode = configuration.notifyNodeOfCapabilityResolution
        broadcast("node.pair.resolved", notice) { $0.isOperator || (notifyNode && $0.nodeId == request.nodeId) }
    }

    /// The approved command set of a node.
    public func approvedCommands(nodeId: String) -> Set<String> {
        approvedSurfaces[nodeId]?.commands ?? []
    }
}
