/// One resolved `_openclaw-gw._tcp` service: the DNS-SD instance, the SRV target and port, the
/// addresses resolved for the target, and the TXT hints.
public struct DiscoveredGateway: Sendable, Hashable {
    /// The DNS-SD instance name (e.g. `OpenClaw on studio`).
    public var instanceName: String
    /// The domain it was found in (`local` or a wide-area domain).
    public var domain: String
    /// The SRV target host name.
    public var hostName: String
    /// The SRV port.
    public var port: Int
    /// Addresses of the SRV target (A/AAAA), as text.
    public var addresses: [String]
    /// The TXT hints.
    public var txt: GatewayTXTRecord

    /// A record.
    public init(
        instanceName: String, domain: String, hostName: String, port: Int, addresses: [String], txt: GatewayTXTRecord
    ) {
        self.instanceName = instanceName
        self.domain = domain
        self.hostName = hostName
        self.port = port
        self.addresses = addresses
        self.txt = txt
    }

    /// The SRV target without the trailing dot.
    public var targetHost: String {
        hostName.hasSuffix(".") ? String(hostName.dropLast()) : hostName
    }

    /// The host to dial: the first resolved IPv4 address of the SRV target, else its first
    /// address, else the SRV target name (protocol.md §17.3: SRV target + A/AAAA, never the
    /// TXT `lanHost`). IPv6 link-local addresses are skipped (they need an interface scope).
    public var dialHost: String {
        if let v4 = addresses.first(where: { !$0.contains(":") }) { return v4 }
        if let v6 = addresses.first(where: { !$0.lowercased().hasPrefix("fe80") }) { return v6 }
        return targetHost
    }

    /// The `wss://` URL to dial (SRV port, never TXT `gatewayPort`), or nil for a gateway that
    /// does not advertise TLS: discovery only connects directly over TLS (protocol.md §17.3).
    public var directURL: String? {
        guard txt.usesTLS else { return nil }
        let host = dialHost.contains(":") ? "[\(dialHost)]" : dialHost
        return "wss://\(host):\(port)"
    }

    /// A display name: TXT `displayName`, else the instance name.
    public var displayName: String {
        txt.displayName.flatMap { $0.isEmpty ? nil : $0 } ?? instanceName
    }
}
