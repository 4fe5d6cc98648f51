package import ClawTalkGateway

/// Several ``GatewaySessionObserver``s as one, told in order (``GatewayService`` takes one).
package struct GatewaySessionObservers: GatewaySessionObserver {
    /// The observers, in the order they are told.
    let observers: [any GatewaySessionObserver]

    /// Tells `observers` in order.
    init(_ observers: [any GatewaySessionObserver]) {
        self.observers = observers
    }

    package func nodeSessionStarted(_ session: NodeSession, gatewayKey: String) async {
        for observer in observers { await observer.nodeSessionStarted(session, gatewayKey: gatewayKey) }
    }

    package func operatorSessionStarted(_ session: OperatorSession) async {
        for observer in observers { await observer.operatorSessionStarted(session) }
    }

    package func sessionEnded() async {
        for observer in observers { await observer.sessionEnded() }
    }
}
