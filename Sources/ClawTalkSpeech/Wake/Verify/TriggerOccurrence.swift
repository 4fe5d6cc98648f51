/// One place where a trigger was found in a ``RecognizedTranscript``.
public struct TriggerOccurrence: Sendable, Hashable {
    /// The trigger as configured (the Gateway's spelling), e.g. `openclaw`.
    public var trigger: String
    /// What the recognizer wrote for it, normalized, e.g. `open club`.
    public var heard: String
    /// True when ``heard`` matched one of the trigger's ``TriggerConfusions`` rather than its own spelling.
    public var viaAlternative: Bool
    /// Indices of the transcript words the trigger spans.
    public var wordRange: ClosedRange<Int>
    /// Start of the trigger's first word in seconds, if the transcript has timings.
    public var triggerStart: Double?
    /// End of the trigger's last word in seconds, if the transcript has timings.
    public var triggerEnd: Double?
    /// The text after the trigger as recognized (leading punctuation removed), "" when none.
    public var command: String
    /// Start of the first command word in seconds, if there is one and it has a timing.
    public var commandStart: Double?

    /// An occurrence (normally built by ``TriggerMatcher``).
    public init(
        trigger: String, heard: String, viaAlternative: Bool, wordRange: ClosedRange<Int>, triggerStart: Double?,
        triggerEnd: Double?, command: String, commandStart: Double?
    ) {
        self.trigger = trigger
        self.heard = heard
        self.viaAlternative = viaAlternative
        self.wordRange = wordRange
        self.triggerStart = triggerStart
        self.triggerEnd = triggerEnd
        self.command = command
        self.commandStart = commandStart
    }

    /// Seconds between the end of the trigger and the start of the command, when both are timed.
    public var postTriggerGap: Double? {
        guard let triggerEnd, let commandStart else { return nil }
        return commandStart - triggerEnd
    }

    /// Letters and digits in ``command`` (what `minCommandLength` counts).
    public var commandLength: Int {
        command.unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }.count
    }
}

/// What the trigger gate (talk.md §6.3) decided about one transcript.
public enum TriggerGateDecision: Sendable, Hashable {
    /// The rule that accepted a trigger.
    public enum Rule: String, Sendable, Hashable {
        /// Trigger, a pause of at least `minPostTriggerGap`, then a command (word timings).
        case postTriggerGap
        /// Only the trigger, followed by at least `triggerOnlyPause` of audio with no words.
        case triggerOnlyPause
        /// A final result without word timings (or with nothing after the trigger): text match only.
        case textOnly
    }

    /// A trigger to act on; ``TriggerOccurrence/command`` is the command ("" for trigger only:
    /// play the trigger chime and wait for the command).
    case accepted(TriggerOccurrence, rule: Rule)
    /// A trigger was heard in a partial result, but no rule accepts it yet.
    case pending(TriggerOccurrence)
    /// A final result with word timings where the command follows the trigger too closely (the
    /// trigger word used in running speech).
    case pauseTooShort(TriggerOccurrence)
    /// No trigger in the transcript.
    case noTrigger

    /// The occurrence the decision is about, if any.
    public var occurrence: TriggerOccurrence? {
        switch self {
        case .accepted(let occurrence, _), .pending(let occurrence), .pauseTooShort(let occurrence): occurrence
        case .noTrigger: nil
        }
    }

    /// True for ``accepted(_:rule:)``.
    public var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }
}
