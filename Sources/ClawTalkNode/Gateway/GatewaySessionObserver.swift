package import ClawTalkGateway

/// Told by ``GatewayService`` when a gateway's sessions start and end, so the talk features
/// follow the current gateway (its connections, its outbox).
package protocol GatewaySessionObserver: Sendable {
    /// The node session of gateway `gatewayKey` is about to run.
    func nodeSessionStarted(_ session: NodeSession, gatewayKey: String) async
    /// The operator session of the current gateway is about to run.
    func operatorSessionStarted(_ session: OperatorSession) async
    /// The gateway's sessions ended (stop, or a switch to another gateway).
    func sessionEnded() async
}
