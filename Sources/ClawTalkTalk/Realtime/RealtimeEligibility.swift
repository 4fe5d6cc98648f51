public import ClawTalkProtocol

/// Whether entering Talk uses the realtime relay (talk.md §9.2 "When"): all of these hold, else
/// native Talk runs and the log says which one failed. Pure.
public enum RealtimeEligibility: Sendable, Hashable {
    /// Realtime Talk over the relay.
    case relay
    /// Native Talk, for this reason.
    case native(Reason)

    /// The condition that failed.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The user did not opt in (`talk.realtimeRelay` false).
        case notOptedIn = "not_opted_in"
        /// No operator connection.
        case noOperator = "no_operator_connection"
        /// `talk.realtime` does not ask for `mode:"realtime"`, `transport:"gateway-relay"`.
        case notConfigured = "talk_realtime_not_gateway_relay"
        /// `talk.catalog` lists no ready realtime provider or not the relay transport.
        case notInCatalog = "catalog_without_realtime_relay"
        /// The connection was not granted `operator.write` (per `hello-ok`).
        case missingScope = "missing_operator_write"
        /// The gateway does not offer the `talk.session.*` methods needed.
        case methodsMissing = "talk_session_methods_missing"
    }

    /// The methods the relay needs (`acknowledgeMark` or its older name is checked separately).
    public static let requiredMethods: [OperatorMethod] = [
        .talkSessionCreate, .talkSessionAppendAudio, .talkSessionClose, .talkSessionCancelOutput,
    ]

    /// Decides from the opt-in, the gateway's `talk.realtime`, its catalog, the granted scopes
    /// (nil or empty: the gateway reported none, so the requested `operator.write` is assumed) and whether
    /// the required methods are offered. Checked in the contract's order.
    public static func decide(
        optedIn: Bool, operatorConnected: Bool, realtime: TalkRealtimeConfig?, catalog: TalkCatalog?,
        grantedScopes: [String]?, methodsOffered: Bool
    ) -> RealtimeEligibility {
        guard optedIn else { return .native(.notOptedIn) }
        guard operatorConnected else { return .native(.noOperator) }
        guard realtime?.wantsGatewayRelay == true else { return .native(.notConfigured) }
        guard let catalog, catalog.realtimeReady, catalog.offersGatewayRelay else { return .native(.notInCatalog) }
        if let grantedScopes, !grantedScopes.isEmpty, !OperatorScopes.covers(Set(grantedScopes), "operator.write") {
            return .native(.missingScope)
        }
        guard methodsOffered else { return .native(.methodsMissing) }
        return .relay
    }
}
