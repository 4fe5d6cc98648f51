public import ClawTalkGateway

/// A ``GatewayDialer`` whose every dial becomes an in-memory connection to a ``TestGateway``;
/// the requests are kept for assertions (URL, pin, receive limit).
public struct TestGatewayDialer: GatewayDialer {
    /// The gateway dialled.
    public let gateway: TestGateway

    /// A dialer for `gateway`.
    public init(gateway: TestGateway) {
        self.gateway = gateway
    }

    /// Opens an in-memory socket served by the gateway.
    public func dial(_ request: GatewayDialRequest) async throws -> any GatewaySocket {
        await gateway.recordDial(request)
        return await gateway.connectInMemory()
    }
}

extension TestGateway {
    func recordDial(_ request: GatewayDialRequest) {
        dialRequests.append(request)
    }

    /// Every request a ``TestGatewayDialer`` received, in order.
    public var dials: [GatewayDialRequest] { dialRequests }
}
