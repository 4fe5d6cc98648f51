public import ClawTalkDevices
public import ClawTalkGateway
import ClawTalkProtocol
public import ClawTalkSupport
import ClawTalkTalk
import Foundation

/// Builds the node and operator ``GatewayConnection``s for a ``GatewayTarget``: the one place
/// `clawtalk run` and `clawtalk pair` share, so pairing connects exactly as the service does.
public struct GatewayConnectionFactory: Sendable {
    /// The effective settings.
    public var settings: Settings
    /// The device identity (both roles sign with it).
    public var identity: DeviceIdentity
    /// Per-gateway state.
    public var store: GatewayStore
    /// Opens sockets (``WebSocketDialer`` in production).
    public var dialer: any GatewayDialer
    /// Parent logger of the connections.
    public var logger: Logger
    /// What the node declares.
    public var surface: NodeSurface
    /// `client` metadata of both roles.
    public var client: ClientMetadata
    /// Reconnect delays.
    public var backoff = Backoff.Configuration()

    /// A factory; `surface` defaults to ``nodeSurface(mic:devices:wakeEnabled:)`` over the sound server.
    public init(
        settings: Settings, identity: DeviceIdentity, store: GatewayStore,
        dialer: any GatewayDialer = WebSocketDialer(),
        logger: Logger, surface: NodeSurface? = nil, environment: [String: String] = [:]
    ) {
        self.settings = settings
        self.identity = identity
        self.store = store
        self.dialer = dialer
        self.logger = logger
        self.surface =
            surface
            ?? Self.nodeSurface(
                mic: settings.mic, devices: Self.soundServerDevices(), wakeEnabled: settings.wake.enabled)
        self.client = ClientMetadata(
            version: ClawTalkVersion.current,
            displayName: settings.gateway.resolvedDisplayName(hostName: Self.hostName()),
            locale: Self.locale(environment: environment))
    }

    /// The connection configuration of `role` for `target`.
    public func configuration(for target: GatewayTarget, role: ConnectionRole) -> GatewayConnectionConfiguration {
        let gateway = settings.gateway
        return GatewayConnectionConfiguration(
            endpoint: target.endpoint, role: role, client: client, sharedToken: target.sharedToken,
            password: target.password, configuredPin: target.configuredPin,
            allowInsecureRemote: gateway.allowInsecureRemote, timeouts: ConnectionTimeouts(settings: gateway),
            backoff: backoff)
    }

    /// The node connection (`role:"node"` with ``surface``).
    public func nodeConnection(for target: GatewayTarget) -> GatewayConnection {
        GatewayConnection(
            configuration: configuration(for: target, role: .node(surface)), dialer: dialer, identity: identity,
            store: store, logger: logger)
    }

    /// The operator connection on the same identity.
    public func operatorConnection(for target: GatewayTarget) -> GatewayConnection {
        GatewayConnection(
            configuration: configuration(for: target, role: .operator), dialer: dialer, identity: identity,
            store: store, logger: logger)
    }

    // MARK: - Surface

    /// What the node declares: cap `talk` (and `voiceWake` while `wake.enabled`, talk.md
    /// §6.5), the four `talk.ptt.*` commands (`clawtalk run`
    /// registers their handlers on every node session), and honest permissions: `microphone`
    /// when the configured source (or a default source) exists on the sound server,
    /// `speechRecognition` false until a local STT engine is loaded.
    public static func nodeSurface(mic: MicSettings, devices: [AudioDevice]?, wakeEnabled: Bool = false) -> NodeSurface
    {
        NodeSurface(
            caps: wakeEnabled ? [.talk, .voiceWake] : [.talk], commands: PTTCommandHandlers.commands,
            permissions: [
                .microphone: microphoneAvailable(device: mic.device, devices: devices), .speechRecognition: false,
            ])
    }

    /// True when `device` (nil: the default source) is among `devices` (nil: no sound server).
    public static func microphoneAvailable(device: String?, devices: [AudioDevice]?) -> Bool {
        guard let devices else { return false }
        if let device {
            return (try? PulseDeviceCatalog.resolve(device, kind: .source, in: devices)) != nil
        }
        return devices.contains { $0.kind == .source && $0.isDefault && !$0.isMonitor }
    }

    /// The sound server's devices, or nil when it cannot be reached within a second.
    public static func soundServerDevices() -> [AudioDevice]? {
        try? PulseDeviceCatalog(timeout: .seconds(1)).devices()
    }

    /// The host name from `gethostname` (no DNS lookup, unlike `ProcessInfo.hostName`).
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "linux" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "linux" : name
    }

    /// BCP-47 locale from `LC_ALL`, `LC_MESSAGES` or `LANG` (`en_US.UTF-8` → `en-US`); nil for
    /// `C`/`POSIX` or when unset.
    public static func locale(environment: [String: String]) -> String? {
        let raw = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let raw else { return nil }
        let base = raw.split(separator: ".").first.map(String.init) ?? raw
        let language = (base.split(separator: "@").first.map(String.init) ?? base)
        guard language != "C", language != "POSIX", !language.isEmpty else { return nil }
        let parts = language.split(separator: "_")
        let valid = parts.allSatisfy { part in
            !part.isEmpty && part.count <= 8 && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
        return valid ? parts.joined(separator: "-") : nil
    }
}
