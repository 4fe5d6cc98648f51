/// Which session a wake command goes to, per trigger (talk.md §6.2): the `config` of
/// `voicewake.routing.get` and the `voicewake.routing.changed` event (clawtalk only reads it;
/// `voicewake.routing.set` is gone upstream, protocol.md §14),
/// `{version:1, defaultTarget, routes:[{trigger, target}], updatedAtMs}`.
///
/// Read leniently: a route with an unusable trigger or target is skipped, an unusable default
/// target is `current`, and at most ``maxRoutes`` routes are kept.
public struct VoiceWakeRouting: Sendable, Hashable {
    /// Where a command goes.
    public enum Target: Sendable, Hashable {
        /// The node's own session (talk.md §3.5).
        case current
        /// An agent (`{agentId}`); how to deliver there is UNVERIFIED upstream, so clawtalk uses
        /// the default target instead and logs a warning.
        case agent(String)
        /// A named session (`{sessionKey}`).
        case session(String)
    }

    /// One trigger's route.
    public struct Route: Sendable, Hashable {
        /// The trigger, normalized (``VoiceWakeRouting/normalizeTrigger(_:)``).
        public var trigger: String
        /// Where its commands go.
        public var target: Target

        /// A route for `trigger` (normalized here).
        public init(trigger: String, target: Target) {
            self.trigger = VoiceWakeRouting.normalizeTrigger(trigger)
            self.target = target
        }
    }

    /// The only config version there is.
    public static let version = 1
    /// Most routes kept.
    public static let maxRoutes = 32
    /// Longest route trigger (characters).
    public static let maxTriggerLength = 64

    /// Every command to the current session: the routing before the gateway says otherwise.
    public static let `default` = VoiceWakeRouting(defaultTarget: .current, routes: [])

    /// Where a trigger without a route goes.
    public var defaultTarget: Target
    /// The routes, in the gateway's order.
    public var routes: [Route]
    /// When the gateway last changed it (ms since 1970), if it said.
    public var updatedAtMs: Int64?

    /// A routing table.
    public init(defaultTarget: Target, routes: [Route], updatedAtMs: Int64? = nil) {
        self.defaultTarget = defaultTarget
        self.routes = routes
        self.updatedAtMs = updatedAtMs
    }

    /// Reads a `{config}` payload (the `voicewake.routing.get` result or the changed event).
    /// - Throws: ``ProtocolError/invalidPayload(_:)`` without a `config` object or with a
    ///   version other than 1.
    public init(payload: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(payload, what: "voicewake.routing")
        try self.init(config: reader["config"])
    }

    /// Reads a config object.
    /// - Throws: ``ProtocolError/invalidPayload(_:)`` when it is not an object or its version
    ///   is not 1.
    public init(config: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(config, what: "voicewake.routing config")
        if let version = reader["version"], version.intValue != Self.version {
            throw .invalidPayload("voicewake.routing config: unsupported version \(version)")
        }
        var routes: [Route] = []
        for entry in reader["routes"]?.arrayValue ?? [] {
            guard routes.count < Self.maxRoutes, let object = entry.objectValue,
                let trigger = object["trigger"]?.stringValue, let target = Self.target(object["target"])
            else { continue }
            let route = Route(trigger: trigger, target: target)
            guard !route.trigger.isEmpty, route.trigger.count <= Self.maxTriggerLength else { continue }
            routes.append(route)
        }
        self.init(
            defaultTarget: Self.target(reader["defaultTarget"]) ?? .current, routes: routes,
            updatedAtMs: reader.int64("updatedAtMs"))
    }

    /// Where a command after `trigger` goes: its route's target, else the default.
    public func target(for trigger: String) -> Target {
        let key = Self.normalizeTrigger(trigger)
        return routes.first { $0.trigger == key }?.target ?? defaultTarget
    }

    /// The gateway's trigger normalization for routes: lowercase, punctuation stripped at the
    /// edges of each word, whitespace collapsed to single spaces.
    public static func normalizeTrigger(_ trigger: String) -> String {
        trigger.lowercased().split(whereSeparator: \.isWhitespace)
            .map { word in
                word.drop { $0.isPunctuation || $0.isSymbol }.reversed().drop { $0.isPunctuation || $0.isSymbol }
                    .reversed()
            }
            .map { String($0) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// `{mode:"current"}`, `{agentId}` or `{sessionKey}` (exactly one key), else nil.
    static func target(_ json: WireJSON?) -> Target? {
        guard let object = json?.objectValue, object.count == 1, let (key, value) = object.members.first,
            let text = value.stringValue
        else { return nil }
        switch key {
        case "mode": return text == "current" ? .current : nil
        case "agentId": return text.isEmpty ? nil : .agent(text)
        case "sessionKey": return text.isEmpty ? nil : .session(text)
        default: return nil
        }
    }
}
