/// Which operator scope each method clawtalk calls needs (protocol.md §14, checklist 40), and
/// whether the scopes granted in `hello-ok` (`auth.scopes`, the socket's effective scopes on
/// current upstream) cover it: `operator.admin` covers all; `operator.write` covers
/// `operator.read` and `operator.talk`.
public enum OperatorScopes {
    /// The scope `method` needs.
    public static func required(for method: OperatorMethod) -> String {
        switch method {
        case .talkConfig, .talkCatalog, .chatHistory, .voiceWakeGet, .voiceWakeRoutingGet, .ttsStatus, .ttsProviders:
            "operator.read"
        case .talkSpeak, .talkMode, .talkSessionCreate, .talkSessionAppendAudio, .talkSessionClose,
            .talkSessionCancelOutput, .talkSessionAcknowledgeMark, .talkRealtimeRelayMark, .talkSessionSubmitToolResult:
            "operator.talk"
        case .chatSend, .agent, .ttsSpeak, .voiceWakeSet:
            "operator.write"
        }
    }

    /// Whether `granted` covers `scope`.
    public static func covers(_ granted: Set<String>, _ scope: String) -> Bool {
        granted.contains(scope) || granted.contains("operator.admin")
            || (["operator.read", "operator.talk"].contains(scope) && granted.contains("operator.write"))
    }

    /// The methods `granted` does not cover, with the scope each lacks. Nil or empty `granted`:
    /// the gateway reported none (older gateways send `scopes: []` for a shared-secret operator
    /// socket that may call everything), so nothing is assumed missing.
    public static func notGranted(by granted: [String]?) -> [OperatorMethod: String] {
        guard let granted, !granted.isEmpty else { return [:] }
        let set = Set(granted)
        var missing: [OperatorMethod: String] = [:]
        for method in OperatorMethod.allCases where !covers(set, required(for: method)) {
            missing[method] = required(for: method)
        }
        return missing
    }
}
