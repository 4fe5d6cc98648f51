/// The `talk.config` result (talk.md §5.7), read leniently from `{config:{talk, session}}`.
/// Called without `includeSecrets`; a provider key is never kept, only whether a usable one
/// was present (`__OPENCLAW_REDACTED__` and `${ENV}` placeholders count as absent).
public struct TalkConfig: Sendable, Hashable {
    /// Silence window when `talk.silenceTimeoutMs` is absent.
    public static let defaultSilenceTimeoutMs = 700
    /// Session key when `session.mainKey` is absent.
    public static let defaultSessionKey = "main"
    /// The Gateway's redaction marker for secrets.
    public static let redactedMarker = "__OPENCLAW_REDACTED__"

    /// Active provider id (`talk.resolved.provider`, else `talk.provider`); informational.
    public var provider: String?
    /// Provider voice id.
    public var voiceId: String?
    /// Voice alias → voice id.
    public var voiceAliases: [String: String]
    /// Provider model id.
    public var modelId: String?
    /// Provider default output format.
    public var outputFormat: String?
    /// A non-placeholder provider key was present (clawtalk never uses it).
    public var hasAPIKey: Bool
    /// `talk.speechLocale` with `_` → `-`.
    public var speechLocale: String?
    /// `talk.interruptOnSpeech` (default true).
    public var interruptOnSpeech: Bool
    /// `talk.silenceTimeoutMs` (default 700).
    public var silenceTimeoutMs: Int
    /// `talk.idleTimeoutS`, when set to a positive number.
    public var idleTimeoutS: Double?
    /// `talk.agentId`; informational.
    public var agentId: String?
    /// `talk.realtime`, raw.
    public var realtime: WireJSON?
    /// `session.mainKey` (default `main`).
    public var sessionMainKey: String

    /// A configuration with the given values.
    public init(
        provider: String? = nil, voiceId: String? = nil, voiceAliases: [String: String] = [:], modelId: String? = nil,
        outputFormat: String? = nil, hasAPIKey: Bool = false, speechLocale: String? = nil,
        interruptOnSpeech: Bool = true, silenceTimeoutMs: Int = TalkConfig.defaultSilenceTimeoutMs,
        idleTimeoutS: Double? = nil, agentId: String? = nil, realtime: WireJSON? = nil,
        sessionMainKey: String = TalkConfig.defaultSessionKey
    ) {
        self.provider = provider
        self.voiceId = voiceId
        self.voiceAliases = voiceAliases
        self.modelId = modelId
        self.outputFormat = outputFormat
        self.hasAPIKey = hasAPIKey
        self.speechLocale = speechLocale
        self.interruptOnSpeech = interruptOnSpeech
        self.silenceTimeoutMs = silenceTimeoutMs
        self.idleTimeoutS = idleTimeoutS
        self.agentId = agentId
        self.realtime = realtime
        self.sessionMainKey = sessionMainKey
    }

    /// Reads the result payload (`{config:{…}}`, or the config object itself). Provider
    /// fields come from `talk.resolved.config`, then `talk.providers[provider]`, then (legacy
    /// flat payloads without `provider`/`providers`) from `talk` itself.
    public init(json: WireJSON?) throws(ProtocolError) {
        let root = try PayloadReader(json, what: "talk.config")
        let config = root["config"]?.objectValue ?? root.object
        let talk = config["talk"]?.objectValue ?? WireObject()

        let resolved = talk["resolved"]?.objectValue
        let resolvedProvider = resolved?["provider"]?.nonEmptyStringValue
        let provider = resolvedProvider ?? talk["provider"]?.nonEmptyStringValue
        var sources: [WireObject] = []
        if let resolvedConfig = resolved?["config"]?.objectValue { sources.append(resolvedConfig) }
        if let provider, let providerConfig = talk["providers"]?[provider]?.objectValue {
            sources.append(providerConfig)
        }
        if talk["provider"] == nil, talk["providers"] == nil, resolved == nil { sources.append(talk) }

        func first(_ key: String) -> WireJSON? {
            sources.lazy.compactMap { $0[key] }.first
        }
        var aliases: [String: String] = [:]
        for member in first("voiceAliases")?.objectValue?.members ?? [] {
            if let id = member.value.nonEmptyStringValue { aliases[member.key] = id }
        }
        let apiKey = first("apiKey")?.stringValue

        self.init(
            provider: provider, voiceId: first("voiceId")?.nonEmptyStringValue, voiceAliases: aliases,
            modelId: first("modelId")?.nonEmptyStringValue,
            outputFormat: first("outputFormat")?.nonEmptyStringValue ?? talk["outputFormat"]?.nonEmptyStringValue,
            hasAPIKey: apiKey.map { !Self.isSecretPlaceholder($0) } ?? false,
            speechLocale: talk["speechLocale"]?.nonEmptyStringValue.map { $0.replacingUnderscores() },
            interruptOnSpeech: talk["interruptOnSpeech"]?.boolValue ?? true,
            silenceTimeoutMs: talk["silenceTimeoutMs"]?.intValue.flatMap { $0 > 0 ? $0 : nil }
                ?? Self.defaultSilenceTimeoutMs,
            idleTimeoutS: talk["idleTimeoutS"]?.doubleValue.flatMap { $0 > 0 ? $0 : nil },
            agentId: talk["agentId"]?.nonEmptyStringValue, realtime: talk["realtime"],
            sessionMainKey: config["session"]?["mainKey"]?.nonEmptyStringValue ?? Self.defaultSessionKey)
    }

    /// True for values that stand for "no key": empty, `__OPENCLAW_REDACTED__` or a `${ENV}`
    /// placeholder.
    public static func isSecretPlaceholder(_ value: String) -> Bool {
        let trimmed = value.trimmingWhitespace()
        if trimmed.isEmpty || trimmed == redactedMarker { return true }
        return trimmed.hasPrefix("${") && trimmed.hasSuffix("}") && trimmed.count > 3
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
