import ClawTalkSpeech
import Testing

/// Word timings written as `word@start-end`.
private func timed(_ spec: String, isFinal: Bool = false, heard: Double? = nil) -> RecognizedTranscript {
    let words = spec.split(separator: " ").map { part -> RecognizedTranscript.Word in
        let pieces = part.split(separator: "@")
        let times = pieces[1].split(separator: "-").map { Double($0)! }
        return .init(String(pieces[0]), start: times[0], end: times[1])
    }
    return RecognizedTranscript(words: words, isFinal: isFinal, audioDuration: heard)
}

@Suite struct TriggerMatcherTests {
    static let matcher = TriggerMatcher(triggers: ["openclaw", "claude", "computer"])

    // MARK: Finding triggers in text

    @Test(arguments: [
        ("computer turn on the lights", "computer", "turn on the lights"),
        ("Computer, turn on the lights.", "computer", "turn on the lights."),
        ("hey COMPUTER what time is it", "computer", "what time is it"),
        ("Open claw, what's the weather", "openclaw", "what's the weather"),
        ("OpenClaw what's the weather", "openclaw", "what's the weather"),
        ("open club what's the weather", "openclaw", "what's the weather"),
        ("open cloud play music", "openclaw", "play music"),
        ("Open call. Play music", "openclaw", "Play music"),
        ("Clàude, summarize this", "claude", "summarize this"),
        ("clawed summarize this", "claude", "summarize this"),
        ("ＣＯＭＰＵＴＥＲ stop", "computer", "stop"),
        ("computer-play jazz", "computer", "play jazz"),
        ("claude", "claude", ""),
        ("claude ...", "claude", ""),
    ])
    func findsTriggerAndCommand(text: String, trigger: String, command: String) throws {
        let occurrence = try #require(Self.matcher.occurrences(in: .init(text: text, isFinal: true)).first)
        #expect(occurrence.trigger == trigger)
        #expect(occurrence.command == command)
    }

    @Test(arguments: [
        "the cloud is down",
        "a clod of earth",
        "my computers are slow",
        "open the door",
        "claws and clauses",
        "",
    ])
    func ignoresNearMisses(text: String) {
        #expect(Self.matcher.occurrences(in: .init(text: text, isFinal: true)).isEmpty)
        #expect(Self.matcher.evaluate(.init(text: text, isFinal: true)) == .noTrigger)
    }

    @Test func confusionsCanBeSwitchedOff() {
        let strict = TriggerMatcher(triggers: ["openclaw"], confusions: .none)
        #expect(strict.occurrences(in: .init(text: "open club hi", isFinal: true)).isEmpty)
        #expect(strict.occurrences(in: .init(text: "open claw hi", isFinal: true)).count == 1)
        let occurrence = Self.matcher.occurrences(in: .init(text: "open club hi", isFinal: true)).first
        #expect(occurrence?.viaAlternative == true)
        #expect(occurrence?.heard == "open club")
    }

    @Test func multiWordTriggerMatchesJoinedSpelling() {
        let matcher = TriggerMatcher(triggers: ["hey jarvis"])
        #expect(matcher.occurrences(in: .init(text: "heyjarvis lights", isFinal: true)).first?.command == "lights")
        #expect(matcher.occurrences(in: .init(text: "Hey, Jarvis! lights", isFinal: true)).first?.command == "lights")
        #expect(matcher.occurrences(in: .init(text: "jarvis lights", isFinal: true)).isEmpty)
    }

    @Test func occurrencesCanBeRestrictedToOneTrigger() {
        let transcript = RecognizedTranscript(text: "claude ask computer", isFinal: true)
        #expect(Self.matcher.occurrences(in: transcript).map(\.trigger) == ["claude", "computer"])
        #expect(Self.matcher.occurrences(in: transcript, only: "computer").map(\.trigger) == ["computer"])
        #expect(Self.matcher.trigger(named: "Computer!") == "computer")
        #expect(Self.matcher.trigger(named: "jarvis") == nil)
    }

    // MARK: The gate (talk.md §6.3)

    struct GateCase: CustomTestStringConvertible, Sendable {
        var name: String
        var transcript: RecognizedTranscript
        var expected: String
        var command: String = ""
        var testDescription: String { name }
    }

    static let gateCases: [GateCase] = [
        GateCase(
            name: "gap 0.5 s then command (partial)",
            transcript: timed("computer@0.2-0.8 turn@1.3-1.5 on@1.5-1.6"), expected: "accepted postTriggerGap",
            command: "turn on"),
        GateCase(
            name: "gap exactly 0.45 s",
            transcript: timed("computer@0.2-0.8 stop@1.25-1.5"), expected: "accepted postTriggerGap", command: "stop"),
        GateCase(
            name: "gap 0.44 s (partial) waits", transcript: timed("computer@0.2-0.8 stop@1.24-1.5"),
            expected: "pending"),
        GateCase(
            name: "gap 0.1 s (final) is running speech",
            transcript: timed("my@0.0-0.1 computer@0.2-0.8 crashed@0.9-1.3", isFinal: true),
            expected: "pauseTooShort"),
        GateCase(
            name: "trigger only, 0.55 s heard after it",
            transcript: timed("computer@0.2-0.8", heard: 1.35), expected: "accepted triggerOnlyPause"),
        GateCase(
            name: "trigger only, 0.5 s heard after it (partial) waits",
            transcript: timed("computer@0.2-0.8", heard: 1.3), expected: "pending"),
        GateCase(
            name: "trigger only, final, short pause: text only",
            transcript: timed("computer@0.2-0.8", isFinal: true, heard: 0.9), expected: "accepted textOnly"),
        GateCase(
            name: "no timings, partial", transcript: .init(text: "computer lights on", isFinal: false),
            expected: "pending"),
        GateCase(
            name: "no timings, final: text only",
            transcript: .init(text: "computer lights on", isFinal: true), expected: "accepted textOnly",
            command: "lights on"),
        GateCase(
            name: "second occurrence passes the gap",
            transcript: timed("computer@0.0-0.5 says@0.6-0.8 computer@1.0-1.5 stop@2.0-2.3", isFinal: true),
            expected: "accepted postTriggerGap", command: "stop"),
        GateCase(
            name: "no trigger", transcript: timed("hello@0.0-0.5 there@1.2-1.5", isFinal: true), expected: "noTrigger"),
    ]

    @Test(arguments: gateCases)
    func gate(_ gateCase: GateCase) {
        let decision = Self.matcher.evaluate(gateCase.transcript)
        let label: String
        switch decision {
        case .accepted(_, let rule): label = "accepted \(rule.rawValue)"
        case .pending: label = "pending"
        case .pauseTooShort: label = "pauseTooShort"
        case .noTrigger: label = "noTrigger"
        }
        #expect(label == gateCase.expected)
        if decision.isAccepted { #expect(decision.occurrence?.command == gateCase.command) }
    }

    @Test func minimumCommandLengthIsConfigurable() {
        let strict = TriggerMatcher(triggers: ["computer"], configuration: .init(minCommandLength: 3))
        let transcript = timed("computer@0.0-0.5 go@1.0-1.2")
        #expect(strict.evaluate(transcript) == .pending(strict.occurrences(in: transcript)[0]))
        #expect(Self.matcher.evaluate(transcript).isAccepted)
    }

    @Test func gapIsMeasuredFromTriggerEndToCommandStart() throws {
        let occurrence = try #require(Self.matcher.occurrences(in: timed("open@0.1-0.4 claw@0.4-0.9 go@1.6-1.8")).first)
        #expect(occurrence.trigger == "openclaw")
        #expect(occurrence.wordRange == 0...1)
        #expect(occurrence.triggerStart == 0.1)
        #expect(occurrence.triggerEnd == 0.9)
        #expect(occurrence.postTriggerGap.map { abs($0 - 0.7) < 1e-9 } == true)
    }
}
