/// `{triggers}`: the `voicewake.get` result, the `voicewake.set` params and the
/// `voicewake.changed` event (talk.md §6.1).
public struct VoiceWakeTriggers: Sendable, Hashable, Codable {
    /// The Gateway's defaults, used when a normalized list is empty.
    public static let defaults = ["openclaw", "claude", "computer"]
    /// Most triggers kept.
    public static let maxCount = 32
    /// Longest trigger, UTF-16 code units.
    public static let maxUTF16Length = 64

    /// Trigger phrases.
    public var triggers: [String]

    /// A list as given (use ``normalized(_:)`` before sending).
    public init(triggers: [String]) {
        self.triggers = triggers
    }

    /// Reads `{triggers}`; non-string entries are skipped.
    /// - Throws: ``ProtocolError/invalidPayload(_:)`` when `triggers` is not an array.
    public init(json: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "voicewake")
        guard let triggers = reader.strings("triggers") else { throw .invalidPayload("voicewake: missing 'triggers'") }
        self.init(triggers: triggers)
    }

    /// The Gateway's normalization: trim (JavaScript `trim`), drop empties, keep the first 32,
    /// cut each to 64 UTF-16 units without splitting a surrogate pair; an empty result becomes
    /// ``defaults``.
    public static func normalize(_ triggers: [String]) -> [String] {
        let cleaned = triggers.map { $0.jsTrimmed() }.filter { !$0.isEmpty }.prefix(maxCount)
            .map { $0.truncatedToUTF16(maxUTF16Length) }
        return cleaned.isEmpty ? defaults : Array(cleaned)
    }

    /// `voicewake.set` params with ``normalize(_:)`` applied.
    public static func normalized(_ triggers: [String]) -> VoiceWakeTriggers {
        VoiceWakeTriggers(triggers: normalize(triggers))
    }
}
