/// The `client.id`/`client.mode` pair of the operator connection (protocol.md §14):
/// `gateway-client`/`backend` first; on `INVALID_REQUEST` retry once with `cli`/`cli` and
/// remember the pair per gateway key.
public enum OperatorClientPair: String, Sendable, Hashable, Codable, CaseIterable {
    /// `gateway-client` / `backend`.
    case gatewayClient
    /// `cli` / `cli`.
    case cli

    /// `client.id`.
    public var id: GatewayClientID {
        switch self {
        case .gatewayClient: .gatewayClient
        case .cli: .cli
        }
    }

    /// `client.mode`.
    public var mode: GatewayClientMode {
        switch self {
        case .gatewayClient: .backend
        case .cli: .cli
        }
    }
}
