import ClawTalkProtocol
import Testing

@testable import ClawTalkTalk

@Suite("Speakable text (talk.md §4.3, §7.6)")
struct SpeakableTextBufferTests {
    static let reply = """
        {"voice":"nova","once":true}

        # Weather
        It is **sunny** today. Take a [hat](https://example.com/hat)!
        ```swift
        let x = 1. print(x)
        ```
        - Wind: light
        Bye
        """

    @Test func theDirectiveIsParsedAndStrippedCodeIsSkippedAndMarkupRemoved() {
        var buffer = SpeakableTextBuffer()
        let segments = buffer.finish(Self.reply)
        #expect(buffer.directive?.voice == "nova")
        #expect(buffer.directive?.once == true)
        #expect(segments == ["Weather", "It is sunny today.", "Take a hat!", "Wind: light", "Bye"])
        #expect(buffer.spokenText == "Weather It is sunny today. Take a hat! Wind: light Bye")
    }

    @Test(arguments: [1, 2, 3, 7, 16])
    func streamingInPiecesGivesTheSameSegmentsAsTheWholeText(step: Int) {
        var whole = SpeakableTextBuffer()
        let expected = whole.finish(Self.reply)
        var streamed = SpeakableTextBuffer()
        var segments: [String] = []
        var text = ""
        for character in Self.reply {
            text.append(character)
            if text.count % step == 0 { segments += streamed.update(text) }
        }
        segments += streamed.finish(text)
        #expect(segments == expected)
        #expect(streamed.directive == whole.directive)
    }

    @Test func nothingIsSpokenBeforeTheFirstLineIsKnownToBeOrNotBeADirective() {
        var buffer = SpeakableTextBuffer()
        #expect(buffer.update("{\"voice\":\"nova\"}  Hello there. Next") == [])
        // The line was not a directive after all: it is ordinary text.
        #expect(
            buffer.update("{\"voice\":\"nova\"}  Hello there. Next\nDone. ")
                == ["{\"voice\":\"nova\"} Hello there.", "Next", "Done."])
        #expect(buffer.directive == nil)
        var plain = SpeakableTextBuffer()
        #expect(plain.update("{not json} Hello there. Next") == [])
        #expect(plain.update("{not json} Hello there. Next\n") == ["{not json} Hello there.", "Next"])
        var directive = SpeakableTextBuffer()
        #expect(directive.update("{\"lang\":\"de\"}\nHallo. Wie") == ["Hallo."])
        #expect(directive.directive?.language == "de")
    }

    @Test func aSentenceEndNeedsTheNextCharacterAndTheSoftLimitCutsAtWhitespace() {
        var buffer = SpeakableTextBuffer()
        #expect(buffer.update("Pi is 3.") == [])
        #expect(buffer.update("Pi is 3.14 and e is 2.71. Ok") == ["Pi is 3.14 and e is 2.71."])
        var long = SpeakableTextBuffer(softLimit: 20)
        let segments = long.finish("one two three four five six seven eight nine ten")
        #expect(segments == ["one two three four five", "six seven eight nine", "ten"])
        #expect(segments.dropLast().allSatisfy { $0.count >= 20 })
    }

    @Test func anOpenFenceHidesEverythingUntilItCloses() {
        var buffer = SpeakableTextBuffer()
        #expect(buffer.update("Here:\n``") == ["Here:"])
        #expect(buffer.update("Here:\n```\ncode. more. ") == [])
        #expect(buffer.finish("Here:\n```\ncode. more.\n```\nAfter.") == ["After."])
    }

    @Test func aRewrittenTextBeforeAnythingWasSpokenStartsOver() {
        var buffer = SpeakableTextBuffer()
        #expect(buffer.update("Helo") == [])
        #expect(buffer.finish("Hello world.") == ["Hello world."])
    }

    @Test func aNewDraftKeepsTheSpokenDirectiveButItsOwnDecidesWhenNothingWasSpoken() {
        var spoken = SpeakableTextBuffer()
        #expect(spoken.update("{\"voice\":\"nova\"}\nHello. The") == ["Hello."])
        #expect(spoken.update("{\"voice\":\"echo\"}\nHello. Bye. ") == ["Bye."])
        #expect(spoken.directive?.voice == "nova")
        var silent = SpeakableTextBuffer()
        #expect(silent.update("{\"voice\":\"nova\"}\nHello") == [])
        #expect(silent.update("{\"voice\":\"echo\"}\nHi. ", rewrite: true) == ["Hi."])
        #expect(silent.directive?.voice == "echo")
    }

    @Test func aRewriteWithdrawsTheOldDraftsSegmentsItDoesNotRepeatBeforeItsFirstNewOne() {
        var buffer = SpeakableTextBuffer()
        #expect(buffer.update("Sure. Let me look. It is") == ["Sure.", "Let me look."])
        #expect(buffer.takeWithdrawals() == [])
        // The new draft repeats "Sure." and has said nothing new yet: nothing is decided.
        #expect(buffer.update("Sure. It", rewrite: true) == [])
        #expect(buffer.takeWithdrawals() == [])
        // Its first new segment: "Let me look." was discarded.
        #expect(buffer.update("Sure. It is sunny. ") == ["It is sunny."])
        #expect(buffer.takeWithdrawals() == [1])
        #expect(buffer.takeWithdrawals() == [])
    }

    @Test func aFinalTextThatDropsASpokenSegmentWithdrawsIt() {
        var buffer = SpeakableTextBuffer()
        #expect(buffer.update("One. Two. Thr") == ["One.", "Two."])
        #expect(buffer.finish("Two.") == [])
        #expect(buffer.takeWithdrawals() == [0])
    }

    @Test func aNewDraftSpeaksEachRepeatOfASpokenSegmentOnlyOnceMore() {
        var buffer = SpeakableTextBuffer()
        #expect(buffer.update("Yes. No") == ["Yes."])
        #expect(buffer.update("Yes. Maybe. Yes. ", rewrite: true) == ["Maybe.", "Yes."])
        #expect(buffer.segments == ["Yes.", "Maybe.", "Yes."])
        #expect(buffer.draftText == "Yes. Maybe. Yes.")
    }

    @Test(arguments: [
        ("Sure.", "sure!"), ("It is  5 .", "it is 5"), ("Done…", "DONE?"),
    ])
    func repeatsCompareWithoutCaseSpacingOrClosingPunctuation(spoken: String, repeated: String) {
        #expect(SpeakableTextBuffer.repeatKey(spoken) == SpeakableTextBuffer.repeatKey(repeated))
        #expect(SpeakableTextBuffer.repeatKey(spoken) != SpeakableTextBuffer.repeatKey("Not \(repeated)"))
    }
}

@Suite("Markdown stripping")
struct MarkdownStripperTests {
    @Test(arguments: [
        ("## Title", true, "Title"),
        ("> quoted *text*", true, "quoted text"),
        ("1. first item", true, "first item"),
        ("* bullet", true, "bullet"),
        ("| a | b |", true, "a b"),
        ("|---|:--:|", true, ""),
        ("---", true, ""),
        ("Use `ls -la` now", false, "Use ls -la now"),
        ("see ![a cat](cat.png) and <https://x.org>", false, "see a cat and https://x.org"),
        ("snake_case stays, _emphasis_ goes, ~~gone~~ marks", false, "snake_case stays, emphasis goes, gone marks"),
        ("# not at a line start", false, "# not at a line start"),
    ])
    func markupIsRemoved(input: String, atLineStart: Bool, expected: String) {
        #expect(MarkdownStripper.strip(input, atLineStart: atLineStart) == expected)
    }
}

@Suite("History reply (talk.md §4.1)")
struct ChatHistoryReplyTests {
    static func message(_ role: String, _ text: String, at ms: Int64?) -> WireJSON {
        var object: WireObject = ["role": .string(role), "content": [["type": "text", "text": .string(text)]]]
        if let ms { object["timestamp"] = .integer(ms) }
        return .object(object)
    }

    @Test func theNewestAssistantMessageAfterTheSendIsTaken() {
        let base: Int64 = 1_800_000_000_000
        let payload: WireJSON = [
            "messages": [
                Self.message("assistant", "old answer", at: base - 100), Self.message("user", "question", at: base),
                Self.message("assistant", "first", at: base + 100), Self.message("assistant", "newest", at: base + 200),
            ]
        ]
        #expect(ChatHistoryReply.reply(in: payload, sentAtMs: base, prompt: "question") == "newest")
        #expect(ChatHistoryReply.reply(in: payload, sentAtMs: base + 300, prompt: "question") == nil)
        // Timestamps in seconds are read as such.
        let seconds: WireJSON = ["messages": [Self.message("assistant", "in seconds", at: base / 1000 + 1)]]
        #expect(ChatHistoryReply.reply(in: seconds, sentAtMs: base, prompt: "question") == "in seconds")
    }

    @Test func withoutTimestampsTheAnswerAfterThePromptIsTaken() {
        let payload: WireJSON = .array([
            Self.message("assistant", "old", at: nil), Self.message("user", "question", at: nil),
            Self.message("assistant", "answer", at: nil),
        ])
        #expect(ChatHistoryReply.reply(in: payload, sentAtMs: 5, prompt: "question") == "answer")
        #expect(ChatHistoryReply.reply(in: payload, sentAtMs: 5, prompt: "other") == nil)
    }

    @Test func sessionKeysMatchAsSentOrCanonical() {
        #expect(SessionKeys.match("agent:main:main", "main"))
        #expect(SessionKeys.match("Main", "main"))
        #expect(!SessionKeys.match("agent:main:other", "main"))
    }
}
