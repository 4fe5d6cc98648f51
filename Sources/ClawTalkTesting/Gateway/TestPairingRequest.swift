/// A pending device-pairing request (protocol.md §8.2); approve it with
/// ``TestGateway/approve(requestId:)``.
public struct TestPairingRequest: Sendable, Equatable {
    /// Request id, matching `^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`.
    public var requestId: String
    /// The device.
    public var deviceId: String
    /// Its normalized (base64url) public key.
    public var publicKey: String
    /// `not-paired`, `role-upgrade`, `scope-upgrade` or `metadata-upgrade`.
    public var reason: String
    /// Requested role.
    public var role: String
    /// Requested scopes.
    public var scopes: [String]
    /// `client.platform` to pin on approval.
    public var platform: String
    /// `client.deviceFamily` to pin on approval.
    public var deviceFamily: String?
    /// `client.instanceId`, used to supersede requests of a re-keyed install.
    public var instanceId: String?
    /// Creation time on the gateway clock.
    public var createdAtMs: Int64
    /// Created by a bootstrap-token connect (approval then also approves the declared surface).
    public var viaBootstrap: Bool
    /// Caps declared by the connect that created it.
    public var caps: [String]
    /// Commands declared by the connect that created it.
    public var commands: [String]

    /// True when `other` would be the same request ("identical details reuse the requestId").
    func hasSameDetails(as other: TestPairingRequest) -> Bool {
        deviceId == other.deviceId && publicKey == other.publicKey && reason == other.reason && role == other.role
            && Set(scopes) == Set(other.scopes) && platform == other.platform && deviceFamily == other.deviceFamily
    }
}

/// A pending capability-approval request (protocol.md §8.4); approve it with
/// ``TestGateway/approveCapabilities(requestId:)``.
public struct TestCapabilityRequest: Sendable, Equatable {
    /// Request id.
    public var requestId: String
    /// The node (deviceId).
    public var nodeId: String
    /// Declared caps to approve.
    public var caps: [String]
    /// Declared commands to approve.
    public var commands: [String]
    /// Creation time on the gateway clock.
    public var createdAtMs: Int64
}
