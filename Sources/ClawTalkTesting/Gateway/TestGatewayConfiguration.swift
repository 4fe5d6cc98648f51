public import ClawTalkProtocol

/// Everything scriptable about a ``TestGateway`` that is not live state. Change it at any time
/// with ``TestGateway/configure(_:)``; each connect reads the current values.
public struct TestGatewayConfiguration: Sendable {
    /// The gateway's shared-secret auth mode (protocol.md §7.4).
    public enum AuthMode: Sendable, Equatable {
        /// No shared secret; device tokens and bootstrap tokens still apply.
        case none
        /// Shared token `auth.token`.
        case token(String)
        /// Shared password `auth.password`.
        case password(String)

        /// `snapshot.authMode` value.
        var name: String {
            switch self {
            case .none: "none"
            case .token: "token"
            case .password: "password"
            }
        }
    }

    /// How streamed reply texts are sent (talk.md §4.3).
    public enum ChatDeltaForm: Sendable, Equatable {
        /// Older gateways: `chat` deltas carry only the cumulative `message` and `agent` events
        /// only `data.text`; a reply that restarts simply sends a text that does not extend the
        /// previous one.
        case cumulative
        /// Newer gateways: `chat` deltas add `deltaText` (the part added since the run's previous
        /// delta) and `agent` events `data.delta`; a text that does not extend the previous one
        /// is marked `replace:true` (`data.replace` on `agent` events), its added part being the
        /// whole new text.
        case marked
    }

    /// Shared-secret auth.
    public var auth: AuthMode = .none
    /// Accepted signature layouts; `.v2Only` rejects v3 signatures.
    public var signaturePolicy: TestSignaturePolicy = .v3ThenV2
    /// `hello-ok.server.version`.
    public var serverVersion = "2026.7.0-test"
    /// `hello-ok.policy`; also the post-handshake inbound limit and the tick period.
    public var policy = HelloOk.Policy(maxPayload: 26_214_400, maxBufferedBytes: 52_428_800, tickIntervalMs: 30_000)
    /// Send `tick` every `policy.tickIntervalMs` on each established socket.
    public var automaticTicks = true
    /// `hello-ok.features.methods`; operator calls to unlisted methods fail "unknown method".
    public var methods: [String] = TestGatewayConfiguration.defaultMethods
    /// `hello-ok.features.events`.
    public var events: [String] = TestGatewayConfiguration.defaultEvents
    /// "gateway starting": every connect gets `UNAVAILABLE` and close 1013 (protocol.md §5, checklist 34).
    public var startingUp = false
    /// `retryAfterMs` of the startup rejection.
    public var startupRetryAfterMs = 500
    /// Rate-limit mode: when set, every connect fails `AUTH_RATE_LIMITED` with this `retryAfterMs`.
    public var rateLimitRetryAfterMs: Int?
    /// Silent local pairing for loopback links (`not-paired`, `role-upgrade`; never scope or metadata).
    public var autoApproveLoopback = false
    /// A node-profile bootstrap token used by `node-host` approves the device and its first
    /// declared surface; when false the connect stays pending (with the retry hints of protocol.md §8.2).
    public var bootstrapApprovesNodeProfile = true
    /// Commands need capability approval (protocol.md §8.4); when false, declared + allowlisted suffices.
    public var requireCapabilityApproval = true
    /// A capability approval updates live sockets; when false the node must reconnect.
    public var capabilityApprovalAppliesLive = false
    /// Send `node.pair.resolved` for its own request to the node connection too.
    public var notifyNodeOfCapabilityResolution = true
    /// Platform default commands of the allowlist (protocol.md §13).
    public var platformDefaultCommands: [String] = []
    /// `gateway.nodes.commands.allow`.
    public var allowCommands: [String] = []
    /// `gateway.nodes.commands.deny` (deny wins).
    public var denyCommands: [String] = []
    /// Reject `payloadJSON:null` in `node.event` and `node.invoke.result` params.
    public var strictNullPayloadJSON = false
    /// `talk.mode` needs `operator.admin` instead of `operator.write`.
    public var talkModeRequiresAdmin = false
    /// Push `voicewake.changed` and `voicewake.routing.changed` to a node after its `hello-ok`.
    public var pushVoiceWakeOnNodeConnect = true
    /// Echo chat session keys in canonical form (`agent:main:<key>`) instead of as sent.
    public var canonicalChatSessionKeys = false
    /// The form of streamed reply texts in scripted chat runs.
    public var chatDeltaForm: ChatDeltaForm = .cumulative
    /// Device pairing requests expire after this long (5 minutes).
    public var pairingRequestLifetimeMs: Int64 = 300_000
    /// Bootstrap tokens expire this long after minting (10 minutes).
    public var bootstrapTokenLifetimeMs: Int64 = 600_000
    /// Whether the traffic log keeps audio: the frames that carry `audioBase64` (the node's
    /// appends, the provider's audio events) in ``TestGateway/recordedFrames(connection:)``, and the
    /// `talk.session.appendAudio` calls in ``TestGateway/observedEvents`` and
    /// ``TestGateway/events``. The bench's realtime runs turn it off: 40 minutes of them held
    /// 600 MB in the bench process (2026-12-07).
    public var recordsAudio = true

    /// The defaults: no auth, v3 then v2, 25 MiB / 50 MiB / 30 s policy, all methods.
    public init() {}

    /// Methods this gateway implements (optional ones can be dropped to exercise fallbacks).
    public static let defaultMethods: [String] =
        OperatorMethod.allCases.map(\.rawValue) + ["node.invoke.result", "node.event", "skills.bins"]

    /// Events this gateway may send.
    public static let defaultEvents: [String] = [
        "connect.challenge", "tick", "health", "presence", "shutdown", "node.invoke.request", "node.invoke.cancel",
        "voicewake.changed", "voicewake.routing.changed", "chat", "agent", "talk.mode", "talk.event",
        "node.pair.requested", "node.pair.resolved", "device.pair.requested", "device.pair.resolved",
    ]

    /// The node-role allowlist (protocol.md §10.1, all versions merged); everything else is refused.
    public static let nodeMethods: Set<String> = [
        "node.invoke.result", "node.event", "skills.bins", "node.pending.pull", "node.pending.ack",
        "node.pending.drain", "node.pluginSurface.refresh", "node.canvas.capability.refresh",
        "node.invoke.progress", "node.pluginTools.update", "node.skills.update", "node.protocolFeatures.update",
    ]
}
