import ClawTalkGateway

/// Several ``GatewaySessionObserver``s told in order (replies, then voice wake, …).
struct GatewaySessionObservers: GatewaySessionObserver {
    /// The observers, in the order they are told.
    let observers: [any GatewaySessionObserver]

    init(_ observers: [any GatewaySessionObserver]) {
        self.observers = observers
    }

    func nodeSessionStarted(_ session: NodeSession, gatewayKey: String) async {
        for observer in observers { await observer.nodeSessionStarted(session, gatewayKey: gatewayKey) }
    }

    func operatorSessionStarted(_ session: OperatorSession) async {
        for observer in observers { await observer.operatorSessionStarted(session) }
    }

    func sessionEnded() async {
        for observer in observers { await observer.sessionEnded() }
    }
}
