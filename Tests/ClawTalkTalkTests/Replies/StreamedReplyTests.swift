import Testing

@testable import ClawTalkTalk

@Suite("Streamed text: extension or rewrite (talk.md §4.3)")
struct ReplyTextTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var held: String
        var piece: StreamedText
        var change: ReplyText.Change
        var text: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "cumulative extension", held: "Hel", piece: .init(text: "Hello"), change: .extended, text: "Hello"),
        Case(name: "same text", held: "Hello", piece: .init(text: "Hello"), change: .unchanged, text: "Hello"),
        Case(name: "nothing sent", held: "Hello", piece: .init(text: ""), change: .unchanged, text: "Hello"),
        Case(
            name: "non-extension is a rewrite, never appended", held: "Hello there", piece: .init(text: "Sorry"),
            change: .rewritten, text: "Sorry"),
        Case(
            name: "a shorter text is a rewrite too", held: "Hello there", piece: .init(text: "Hello"),
            change: .rewritten, text: "Hello"),
        Case(
            name: "replace:true even when the text extends", held: "Hello",
            piece: .init(text: "Hello again", replace: true), change: .rewritten, text: "Hello again"),
        Case(
            name: "replace:true with deltaText only", held: "Hello",
            piece: .init(text: "", delta: "Bye", replace: true),
            change: .rewritten, text: "Bye"),
        Case(
            name: "replace:true with nothing yet", held: "Hello", piece: .init(text: "", replace: true),
            change: .rewritten, text: ""),
        Case(
            name: "deltaText alone is appended", held: "Hello", piece: .init(text: "", delta: " there"),
            change: .extended, text: "Hello there"),
        Case(
            name: "the cumulative text wins over deltaText", held: "Hello",
            piece: .init(text: "Hello there", delta: " th"), change: .extended, text: "Hello there"),
    ])
    func aPieceExtendsOrRewritesTheTextHeld(testCase: Case) {
        var text = ReplyText()
        text.absorb(StreamedText(text: testCase.held))
        #expect(text.absorb(testCase.piece) == testCase.change)
        #expect(text.text == testCase.text)
    }
}

@Suite("What is spoken of a streamed reply (talk.md §4.3)")
struct StreamedReplyTests {
    /// Feeds `pieces` of the chat stream; returns every segment to speak.
    static func chat(_ reply: inout StreamedReply, _ pieces: StreamedText...) -> [String] {
        pieces.flatMap { reply.receive($0, from: .chat).segments }
    }

    @Test func anExtensionSpeaksEachSentenceOnceItIsComplete() {
        var reply = StreamedReply(incremental: true)
        #expect(Self.chat(&reply, .init(text: "Hello there. How")) == ["Hello there."])
        #expect(Self.chat(&reply, .init(text: "Hello there. How are you? I")) == ["How are you?"])
        #expect(reply.finish("Hello there. How are you? I am fine.") == ["I am fine."])
        #expect(reply.spokenText == "Hello there. How are you? I am fine.")
        #expect(reply.replyText == reply.spokenText)
    }

    @Test func replaceTrueDropsTheDiscardedDraft() {
        var reply = StreamedReply(incremental: true)
        #expect(Self.chat(&reply, .init(text: "Let me check. The weather is")) == ["Let me check."])
        let step = reply.receive(.init(text: "It is sunny. Take", replace: true), from: .chat)
        #expect(step.change == .rewritten)
        #expect(step.segments == ["It is sunny."])
        #expect(reply.finish("It is sunny. Take a hat.") == ["Take a hat."])
        #expect(reply.spokenText == "Let me check. It is sunny. Take a hat.")
        #expect(reply.replyText == "It is sunny. Take a hat.")
    }

    @Test func replaceTrueWithOnlyDeltaTextRestartsFromThatText() {
        var reply = StreamedReply(incremental: true)
        #expect(Self.chat(&reply, .init(text: "Let me check. The weather")) == ["Let me check."])
        // Appending would speak "The weatherIt is sunny."
        #expect(Self.chat(&reply, .init(text: "", delta: "It is sunny. ", replace: true)) == ["It is sunny."])
        #expect(!reply.spokenText.contains("weather"))
    }

    @Test func deltaTextAloneExtendsTheReply() {
        var reply = StreamedReply(incremental: true)
        let segments = Self.chat(
            &reply, .init(text: "", delta: "Hello "), .init(text: "", delta: "there. How"),
            .init(text: "", delta: " are you? "))
        #expect(segments == ["Hello there.", "How are you?"])
        #expect(reply.heldText == "Hello there. How are you? ")
    }

    @Test func aNonExtensionWithoutFlagsIsARewriteNotAnAppend() {
        var reply = StreamedReply(incremental: true)
        #expect(Self.chat(&reply, .init(text: "Let me look that up. The answer is")) == ["Let me look that up."])
        // A new LLM call inside the run restarted the text.
        let step = reply.receive(.init(text: "You have two meetings today. "), from: .chat)
        #expect(step.change == .rewritten)
        #expect(step.segments == ["You have two meetings today."])
        #expect(reply.finish("You have two meetings today.") == [])
        #expect(reply.spokenText == "Let me look that up. You have two meetings today.")
    }

    @Test func aRewriteThatRepeatsASpokenSentenceDoesNotSpeakItAgain() {
        var reply = StreamedReply(incremental: true)
        #expect(Self.chat(&reply, .init(text: "Sure. The answer is 4. It")) == ["Sure.", "The answer is 4."])
        #expect(Self.chat(&reply, .init(text: "Sure! The answer is 4. Sorry, 5. ")) == ["Sorry, 5."])
        #expect(reply.finish(nil) == [])
        #expect(reply.spokenText == "Sure. The answer is 4. Sorry, 5.")
        #expect(reply.replyText == "Sure! The answer is 4. Sorry, 5.")
    }

    @Test func aRewriteMidSentenceDropsTheUnspokenPartOfTheSentence() {
        var reply = StreamedReply(incremental: true)
        #expect(Self.chat(&reply, .init(text: "Hello there. I think the ans")) == ["Hello there."])
        #expect(Self.chat(&reply, .init(text: "Hello there. Actually, it")) == [])
        #expect(Self.chat(&reply, .init(text: "Hello there. Actually, it is 5. ")) == ["Actually, it is 5."])
        #expect(reply.finish("Hello there. Actually, it is 5.") == [])
        #expect(reply.spokenText == "Hello there. Actually, it is 5.")
    }

    @Test func theFinalTextIsTheTruthAndOnlyItsUnspokenPartIsSpoken() {
        var extended = StreamedReply(incremental: true)
        #expect(Self.chat(&extended, .init(text: "Let me check. It might")) == ["Let me check."])
        #expect(extended.finish("Let me check. It might rain.") == ["It might rain."])

        var rewritten = StreamedReply(incremental: true)
        #expect(Self.chat(&rewritten, .init(text: "Let me check. It might rain")) == ["Let me check."])
        #expect(rewritten.finish("Let me check. It will be sunny.") == ["It will be sunny."])
        #expect(rewritten.spokenText == "Let me check. It will be sunny.")

        var held = StreamedReply(incremental: true)
        #expect(Self.chat(&held, .init(text: "One. Two")) == ["One."])
        #expect(held.finish("") == ["Two"])
    }

    @Test func onlyTheLeadStreamIsSpokenWhileTheReplyStreams() {
        var reply = StreamedReply(incremental: true)
        #expect(reply.receive(.init(text: "Hi there. Wait"), from: .agent).segments == ["Hi there."])
        #expect(reply.receive(.init(text: "Hi there. Wait"), from: .chat).segments.isEmpty)
        let chat = reply.receive(.init(text: "Something else. "), from: .chat)
        #expect(chat.segments.isEmpty && !chat.fromLead && chat.change == .rewritten)
        #expect(reply.lead == .agent)
        #expect(reply.receive(.init(text: "Hi there. Bye. "), from: .agent).segments == ["Bye."])
        #expect(reply.heldText == "Something else. ")
    }

    @Test func withoutIncrementalSpeechNothingIsSpokenBeforeTheFinal() {
        var reply = StreamedReply(incremental: false)
        #expect(Self.chat(&reply, .init(text: "Draft one. "), .init(text: "Draft two. ")) == [])
        #expect(reply.lead == nil)
        #expect(reply.finish("Final answer.") == ["Final answer."])
    }
}
