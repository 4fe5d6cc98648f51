/// Known misrecognitions of trigger words, so the gate accepts what recognizers really write
/// (talk.md §10, "wake robustness").
///
/// Entries are compared by ``TriggerText/key(_:)``, so word breaks never matter: `open claw`,
/// `openclaw` and `Open-Claw` are one spelling. The table is deliberately short. Every entry turns
/// more running speech into a possible wake, so an alternative is listed only when it is rare in
/// ordinary speech or is a two-word sequence that is:
///
/// | trigger | accepted alternatives | why |
/// |---|---|---|
/// | `openclaw` | `open claws`, `open club`, `open cloud`, `open call`, `open clause` | Whisper and PocketSphinx spellings seen for "OpenClaw"; two-word sequences, rare in running speech |
/// | `claude` | `claud`, `clawed`, `klaud`, `klaude`, `clode` | spellings of the same sounds; **not** `cloud` or `clod`, which are common words and would make every "cloud" a wake |
/// | `computer` | `komputer` | spelling variant; `computers` and `compute her` are not accepted |
public struct TriggerConfusions: Sendable, Hashable {
    /// Alternative spellings by trigger key (``TriggerText/key(_:)`` of the trigger).
    public var alternatives: [String: [String]]

    /// A table from trigger text to alternative spellings (keys are normalized here).
    public init(_ alternatives: [String: [String]]) {
        var table: [String: [String]] = [:]
        for (trigger, spellings) in alternatives {
            table[TriggerText.key(trigger), default: []].append(contentsOf: spellings.map(TriggerText.key))
        }
        self.alternatives = table
    }

    /// The table documented on the type.
    public static let standard = TriggerConfusions([
        "openclaw": ["open claws", "open club", "open cloud", "open call", "open clause"],
        "claude": ["claud", "clawed", "klaud", "klaude", "clode"],
        "computer": ["komputer"],
    ])

    /// No alternatives: only the trigger's own spelling (up to word breaks) matches.
    public static let none = TriggerConfusions([:])

    /// The keys that count as `trigger`: its own key first, then its alternatives.
    public func keys(for trigger: String) -> [String] {
        let key = TriggerText.key(trigger)
        return [key] + (alternatives[key] ?? []).filter { $0 != key }
    }
}
