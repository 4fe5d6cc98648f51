public import ClawTalkProtocol

/// Which connection this is: the node (with its declared surface) or the optional operator.
public enum ConnectionRole: Sendable, Hashable {
    /// `role:"node"` with the caps, commands and permissions to declare (protocol.md §7.2, §12).
    case node(NodeSurface)
    /// `role:"operator"`, scopes `["operator.read","operator.write"]` (protocol.md §14).
    case `operator`

    /// The wire role.
    public var gatewayRole: GatewayRole {
        switch self {
        case .node: .node
        case .operator: .operator
        }
    }

    /// The node surface, for the node role.
    public var nodeSurface: NodeSurface? {
        if case .node(let surface) = self { return surface }
        return nil
    }
}

/// What the node declares in `connect`: caps, commands and permissions (protocol.md
/// §7.2, §12, §13). Never declare commands that have no handler.
public struct NodeSurface: Sendable, Hashable {
    /// `caps`: `talk` always, `voiceWake` while wake is enabled.
    public var caps: [NodeCapability]
    /// `commands`.
    public var commands: [String]
    /// `permissions`.
    public var permissions: [NodePermission: Bool]

    /// A surface; the default declares the talk capability and the four `talk.ptt.*` commands.
    public init(
        caps: [NodeCapability] = [.talk], commands: [String] = TalkCommand.allCases.map(\.rawValue),
        permissions: [NodePermission: Bool] = [:]
    ) {
        self.caps = caps
        self.commands = commands
        self.permissions = permissions
    }
}
