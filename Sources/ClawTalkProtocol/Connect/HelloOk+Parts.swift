extension HelloOk {
    /// `server {version, connId}`; missing fields read as `""`.
    public struct Server: Sendable, Hashable, Encodable {
        /// Gateway version (a change resets the remembered signature version, protocol.md §6.2).
        public var version: String
        /// Connection id, for logs.
        public var connId: String

        /// Server info with the given values.
        public init(version: String, connId: String) {
            self.version = version
            self.connId = connId
        }

        init(json: WireJSON?) {
            self.init(version: json?["version"]?.stringValue ?? "", connId: json?["connId"]?.stringValue ?? "")
        }
    }

    /// `features {methods, events, capabilities?}`; missing lists read as empty.
    public struct Features: Sendable, Hashable, Encodable {
        /// Callable methods.
        public var methods: [String]
        /// Events the server may send.
        public var events: [String]
        /// Server capabilities, when sent.
        public var capabilities: [String]?

        /// Features with the given lists.
        public init(methods: [String], events: [String], capabilities: [String]? = nil) {
            self.methods = methods
            self.events = events
            self.capabilities = capabilities
        }

        init(json: WireJSON?) {
            self.init(
                methods: json?["methods"]?.stringArrayValue ?? [], events: json?["events"]?.stringArrayValue ?? [],
                capabilities: json?["capabilities"]?.stringArrayValue)
        }
    }

    /// `auth {role, scopes, deviceToken?, issuedAtMs?, deviceTokens?}`: the credentials to
    /// persist per (gateway key, deviceId, role) (protocol.md §11). Not `CustomStringConvertible`: holds
    /// tokens.
    public struct Auth: Sendable, Hashable, Encodable {
        /// Role the connection was admitted with.
        public var role: String
        /// Granted scopes.
        public var scopes: [String]
        /// Device token for this role.
        public var deviceToken: String?
        /// When the token was issued, milliseconds.
        public var issuedAtMs: Int64?
        /// Tokens for further roles (bootstrap over a trusted route only).
        public var deviceTokens: [IssuedDeviceToken]?

        /// Auth info with the given values.
        public init(
            role: String, scopes: [String], deviceToken: String? = nil, issuedAtMs: Int64? = nil,
            deviceTokens: [IssuedDeviceToken]? = nil
        ) {
            self.role = role
            self.scopes = scopes
            self.deviceToken = deviceToken
            self.issuedAtMs = issuedAtMs
            self.deviceTokens = deviceTokens
        }

        /// Nil when not an object or without a string `role`.
        init?(json: WireJSON) {
            guard let role = json["role"]?.stringValue else { return nil }
            self.init(
                role: role, scopes: json["scopes"]?.stringArrayValue ?? [],
                deviceToken: json["deviceToken"]?.nonEmptyStringValue, issuedAtMs: json["issuedAtMs"]?.int64Value,
                deviceTokens: json["deviceTokens"]?.arrayValue?.compactMap(IssuedDeviceToken.init(json:)))
        }
    }

    /// One entry of `auth.deviceTokens`.
    public struct IssuedDeviceToken: Sendable, Hashable, Encodable {
        /// The token.
        public var deviceToken: String
        /// Its role.
        public var role: String
        /// Its scopes.
        public var scopes: [String]
        /// Issue time, milliseconds.
        public var issuedAtMs: Int64?

        /// An issued token.
        public init(deviceToken: String, role: String, scopes: [String], issuedAtMs: Int64? = nil) {
            self.deviceToken = deviceToken
            self.role = role
            self.scopes = scopes
            self.issuedAtMs = issuedAtMs
        }

        init?(json: WireJSON) {
            guard let token = json["deviceToken"]?.nonEmptyStringValue, let role = json["role"]?.stringValue else {
                return nil
            }
            self.init(
                deviceToken: token, role: role, scopes: json["scopes"]?.stringArrayValue ?? [],
                issuedAtMs: json["issuedAtMs"]?.int64Value)
        }
    }

    /// `policy {maxPayload, maxBufferedBytes, tickIntervalMs}`: all limits after `hello-ok`
    /// come from here (protocol.md §4.2).
    public struct Policy: Sendable, Hashable, Encodable {
        /// Largest frame either side may send, bytes.
        public var maxPayload: Int
        /// Send-buffer limit, bytes.
        public var maxBufferedBytes: Int
        /// Tick period; the watchdog fires after twice this without any frame.
        public var tickIntervalMs: Int

        /// A policy with the given limits.
        public init(maxPayload: Int, maxBufferedBytes: Int, tickIntervalMs: Int) {
            self.maxPayload = maxPayload
            self.maxBufferedBytes = maxBufferedBytes
            self.tickIntervalMs = tickIntervalMs
        }

        init(json: WireJSON?) throws(ProtocolError) {
            let reader = try PayloadReader(json, what: "hello-ok.policy")
            let maxPayload = try reader.requiredInt("maxPayload")
            let maxBuffered = try reader.requiredInt("maxBufferedBytes")
            let tick = try reader.requiredInt("tickIntervalMs")
            guard maxPayload > 0, maxBuffered > 0, tick > 0 else {
                throw .invalidPayload("hello-ok.policy: limits must be positive")
            }
            self.init(maxPayload: maxPayload, maxBufferedBytes: maxBuffered, tickIntervalMs: tick)
        }

        /// Silence after which the tick watchdog closes with 4000: `2 × tickIntervalMs`.
        public var watchdogMs: Int {
            2 * tickIntervalMs
        }
    }
}
