/// `gateways.json`: the known gateway keys and the one in use.
struct GatewayRegistryFile: Sendable, Hashable, Codable {
    /// File format version.
    var version = 1
    /// The gateway in use.
    var current: String?
    /// Known keys in registration order.
    var keys: [String] = []
}
