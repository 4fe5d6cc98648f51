/// Finds triggers in recognized text and applies the trigger gate of talk.md §6.3.
///
/// Matching: the transcript's words and the triggers are normalized with ``TriggerText`` (case,
/// diacritics, width and punctuation ignored) and compared by their ``TriggerText/key(_:)``, so
/// a trigger matches any run of consecutive words whose letters spell it (`open claw` matches
/// `openclaw` and the other way round), plus the known misrecognitions in ``TriggerConfusions``.
///
/// The gate, for each occurrence from the earliest on, accepts:
/// 1. **post-trigger gap** (word timings): a command of at least `minCommandLength` characters
///    whose first word starts at least `minPostTriggerGap` (0.45 s) after the trigger's end;
/// 2. **trigger-only pause** (word timings and the heard audio length): nothing after the
///    trigger, and at least `triggerOnlyPause` (0.55 s) of audio after it;
/// 3. **text only**, on final results: without word timings, any occurrence (the command is the
///    text after it, possibly empty); with word timings, only a trigger nothing follows.
///
/// A final result whose only occurrences are followed too closely by more words is
/// ``TriggerGateDecision/pauseTooShort(_:)``: the trigger word was part of running speech.
public struct TriggerMatcher: Sendable, Hashable {
    /// The gate's timings (talk.md §6.3).
    public struct Configuration: Sendable, Hashable {
        /// Least gap between the end of the trigger and the first command word, seconds (0.45).
        public var minPostTriggerGap: Double
        /// Least command length in letters and digits (1).
        public var minCommandLength: Int
        /// Least audio after a trigger nothing follows, seconds (0.55).
        public var triggerOnlyPause: Double
        /// A partial result unchanged for this long, seconds, may be passed as final (1.0); the
        /// matcher does not time anything itself, this documents the caller's rule.
        public var silenceFallback: Double

        /// The contract's values by default.
        public init(
            minPostTriggerGap: Double = 0.45, minCommandLength: Int = 1, triggerOnlyPause: Double = 0.55,
            silenceFallback: Double = 1.0
        ) {
            self.minPostTriggerGap = minPostTriggerGap
            self.minCommandLength = minCommandLength
            self.triggerOnlyPause = triggerOnlyPause
            self.silenceFallback = silenceFallback
        }
    }

    /// The triggers as configured (empty and punctuation-only entries are ignored when matching).
    public private(set) var triggers: [String]
    /// Accepted misrecognitions.
    public var confusions: TriggerConfusions
    /// Gate timings.
    public var configuration: Configuration

    /// Timing comparisons allow this much rounding (seconds), so 1.25 − 0.8 counts as 0.45.
    private static let tolerance = 1e-9
    /// Longest run of words one trigger may span.
    private static let maximumSpan = 6

    /// A matcher for `triggers`.
    public init(
        triggers: [String], confusions: TriggerConfusions = .standard, configuration: Configuration = Configuration()
    ) {
        self.triggers = triggers
        self.confusions = confusions
        self.configuration = configuration
    }

    /// Replaces the trigger list (for example on `voicewake.changed`).
    public mutating func setTriggers(_ triggers: [String]) {
        self.triggers = triggers
    }

    /// The trigger in ``triggers`` that `text` names (same ``TriggerText/key(_:)``), if any.
    public func trigger(named text: String) -> String? {
        let key = TriggerText.key(text)
        return triggers.first { !key.isEmpty && TriggerText.key($0) == key }
    }

    /// Every occurrence of a trigger (or of `only`, when given) in `transcript`, earliest first;
    /// at one position a longer match comes first.
    public func occurrences(in transcript: RecognizedTranscript, only: String? = nil) -> [TriggerOccurrence] {
        let units = Self.units(of: transcript)
        let candidates = only.map { [$0] } ?? triggers
        var found: [(start: Int, end: Int, occurrence: TriggerOccurrence)] = []
        for trigger in candidates {
            let keys = confusions.keys(for: trigger)
            guard let ownKey = keys.first, !ownKey.isEmpty else { continue }
            for start in units.indices {
                var joined = ""
                for end in start..<min(units.count, start + Self.maximumSpan) {
                    joined += units[end].text
                    guard let index = keys.firstIndex(of: joined) else { continue }
                    let occurrence = makeOccurrence(
                        trigger: trigger, units: units, start: start, end: end, viaAlternative: index != 0,
                        transcript: transcript)
                    found.append((start, end, occurrence))
                }
            }
        }
        found.sort { $0.start != $1.start ? $0.start < $1.start : $0.end > $1.end }
        return found.map(\.occurrence)
    }

    /// Applies the gate to `transcript`, considering every trigger (or only `only`).
    public func evaluate(_ transcript: RecognizedTranscript, only: String? = nil) -> TriggerGateDecision {
        let occurrences = occurrences(in: transcript, only: only)
        guard let first = occurrences.first else { return .noTrigger }
        let timed = transcript.hasWordTimings
        for occurrence in occurrences {
            let hasCommand = occurrence.commandLength >= configuration.minCommandLength
            let nothingFollows = occurrence.command.isEmpty
            if timed, let gap = occurrence.postTriggerGap, hasCommand,
                gap + Self.tolerance >= configuration.minPostTriggerGap
            {
                return .accepted(occurrence, rule: .postTriggerGap)
            }
            if timed, nothingFollows, let end = occurrence.triggerEnd, let heard = transcript.audioDuration,
                heard - end + Self.tolerance >= configuration.triggerOnlyPause
            {
                return .accepted(occurrence, rule: .triggerOnlyPause)
            }
            if transcript.isFinal, !timed || nothingFollows {
                return .accepted(occurrence, rule: .textOnly)
            }
        }
        return transcript.isFinal ? .pauseTooShort(first) : .pending(first)
    }

    // MARK: - Private

    /// One normalized word and the transcript word it came from.
    private struct Unit {
        var text: String
        var wordIndex: Int
        /// True for the last normalized word of its transcript word.
        var endsWord: Bool
    }

    private static func units(of transcript: RecognizedTranscript) -> [Unit] {
        var units: [Unit] = []
        for (index, word) in transcript.words.enumerated() {
            let parts = TriggerText.words(word.text)
            for (partIndex, part) in parts.enumerated() {
                units.append(Unit(text: part, wordIndex: index, endsWord: partIndex == parts.count - 1))
            }
        }
        return units
    }

    private func makeOccurrence(
        trigger: String, units: [Unit], start: Int, end: Int, viaAlternative: Bool, transcript: RecognizedTranscript
    ) -> TriggerOccurrence {
        let words = transcript.words
        let firstWord = units[start].wordIndex
        let lastWord = units[end].wordIndex
        var commandParts: [String] = []
        var commandStart: Double?
        if !units[end].endsWord {
            // The trigger ends inside a word ("computer-play"): the rest of that word leads the command.
            commandParts = units[(end + 1)...].prefix { $0.wordIndex == lastWord }.map(\.text)
            commandStart = words[lastWord].start
        }
        let following = words[(lastWord + 1)...]
        if commandParts.isEmpty, let next = following.first(where: { !TriggerText.words($0.text).isEmpty }) {
            commandStart = next.start
        }
        commandParts += following.map(\.text)
        let command = commandParts.joined(separator: " ").drop { !($0.isLetter || $0.isNumber) }
        return TriggerOccurrence(
            trigger: trigger, heard: units[start...end].map(\.text).joined(separator: " "),
            viaAlternative: viaAlternative, wordRange: firstWord...lastWord, triggerStart: words[firstWord].start,
            triggerEnd: words[lastWord].end, command: String(command), commandStart: commandStart)
    }
}
