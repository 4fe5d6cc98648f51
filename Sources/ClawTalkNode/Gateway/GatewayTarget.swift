public import ClawTalkGateway
public import ClawTalkProtocol
public import ClawTalkSupport

/// The gateway the node connects to, with the credentials and pin that go with it.
///
/// `gateway.url` in the configuration overrides the registry's current gateway; then the
/// configured `gateway.token`/`gateway.password`/`gateway.tlsFingerprint` belong to it. For a
/// gateway from the registry, the secret stored by `clawtalk pair` wins and the configured secret
/// is the fallback (it is what the operator connection needs after setup-code pairing); the
/// configured pin is not applied to it (the store holds that gateway's pin). Not
/// `CustomStringConvertible`: it holds secrets.
public struct GatewayTarget: Sendable, Hashable {
    /// Where the target came from.
    public enum Source: String, Sendable, Hashable {
        /// `gateway.url` (flag, environment or config file).
        case config
        /// The current gateway of the registry (`clawtalk pair`, `clawtalk gateways use`).
        case registry
        /// A `clawtalk pair` in progress.
        case pairing
    }

    /// The endpoint.
    public var endpoint: GatewayEndpoint
    /// Where it came from.
    public var source: Source
    /// Shared token to offer when no device token is stored.
    public var sharedToken: String?
    /// Shared password to offer when no device token is stored.
    public var password: String?
    /// Pin that overrides the stored one (configuration or `pair --tls-fingerprint`).
    public var configuredPin: TLSFingerprint?

    /// A target with these fields.
    public init(
        endpoint: GatewayEndpoint, source: Source, sharedToken: String? = nil, password: String? = nil,
        configuredPin: TLSFingerprint? = nil
    ) {
        self.endpoint = endpoint
        self.source = source
        self.sharedToken = sharedToken
        self.password = password
        self.configuredPin = configuredPin
    }

    /// The gateway key of the endpoint.
    public var key: String { endpoint.gatewayKey }

    /// Resolves the target from the settings and the registry; nil when no gateway is configured.
    /// - Throws: ``NodeServiceError/invalidConfiguration(_:)`` for an invalid `gateway.url`, store errors.
    public static func resolve(settings: GatewaySettings, store: GatewayStore) throws -> GatewayTarget? {
        let secrets = GatewaySecretStore(store: store)
        if let url = settings.url {
            let endpoint: GatewayEndpoint
            do {
                endpoint = try GatewayEndpoint.parse(url)
            } catch {
                throw NodeServiceError.invalidConfiguration("gateway.url: \(error)")
            }
            var target = GatewayTarget(
                endpoint: endpoint, source: .config, sharedToken: settings.token, password: settings.password,
                configuredPin: settings.tlsFingerprint.flatMap(TLSFingerprint.init))
            if settings.token == nil, settings.password == nil,
                let stored = try secrets.secret(for: endpoint.gatewayKey)
            {
                target.sharedToken = stored.token
                target.password = stored.password
            }
            return target
        }
        guard let key = try store.current() else { return nil }
        guard let url = try store.displayURL(for: key) else {
            throw GatewayStoreError.malformed(file: "gateways.json", reason: "current gateway \(key) has no URL")
        }
        let endpoint: GatewayEndpoint
        do {
            endpoint = try GatewayEndpoint.parse(url)
        } catch {
            throw GatewayStoreError.malformed(file: "gateways.json", reason: "\(error)")
        }
        let stored = try secrets.secret(for: key)
        let useStored = !(stored?.isEmpty ?? true)
        return GatewayTarget(
            endpoint: endpoint, source: .registry,
            sharedToken: useStored ? stored?.token : settings.token,
            password: useStored ? stored?.password : settings.password)
    }
}
