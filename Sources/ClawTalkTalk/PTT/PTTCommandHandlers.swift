public import ClawTalkGateway
public import ClawTalkProtocol
public import ClawTalkSupport

/// The `talk.ptt.start|stop|cancel|once` node commands (talk.md §2) over a
/// ``PTTController``: params are ignored (`null`, absent, `""` or any object), results are the
/// talk.md §2.3 payloads, failures the talk.md §2.7 ``NodeError``s. The invoke's deadline bounds a `once`
/// capture and the finalization; `node.invoke.cancel` or the local deadline cancels the handler
/// task, which cancels that request's capture. A `ptt` capture started here ends by itself at its
/// next pause once the socket its `start` came on closes (talk.md §2.7).
public struct PTTCommandHandlers: Sendable {
    /// The commands these handlers answer, for `connect.commands`.
    public static let commands = TalkCommand.allCases.map(\.rawValue)

    /// The controller the commands drive.
    public let controller: PTTController
    /// A hint while the audio stack is still starting (answered `NODE_NOT_READY` before any
    /// work), nil when ready.
    public var readiness: @Sendable () async -> String?
    let logger: Logger

    /// Handlers over `controller`; `readiness` defaults to always ready.
    public init(
        controller: PTTController, readiness: @escaping @Sendable () async -> String? = { nil },
        logger: Logger = .discarding
    ) {
        self.controller = controller
        self.readiness = readiness
        self.logger = logger.child(category: "ptt.invoke")
    }

    /// Registers the four commands on `session`, and tells the controller when one of its
    /// sockets closes (a capture started through it has no controller left, talk.md §2.7).
    public func register(on session: NodeSession) async {
        let controller = controller
        await session.onSocketClosed { epoch in await controller.connectionClosed(connection: epoch) }
        for command in TalkCommand.allCases {
            await session.register(
                command.rawValue,
                payloadJSON: { context in
                    try await self.handle(command, context: context)
                })
        }
    }

    /// Answers one invoke: the result payload JSON, or throws the wire error.
    public func handle(_ command: TalkCommand, context: InvokeContext) async throws(NodeError) -> String {
        if !context.params.isEmpty {
            logger.debug(
                "ptt.params.ignored",
                [
                    "command": .string(command.rawValue),
                    "keys": .string(context.params.keys.sorted().joined(separator: ",")),
                ])
        }
        if let hint = await readiness() { throw .notReady(hint) }
        let response = await controller.perform(
            PTTStateMachine.Command(command), timeout: context.timeout, origin: .gateway(connection: context.epoch))
        return try response.payloadJSON()
    }
}
