import ClawTalkProtocol
import ClawTalkTesting
import Testing

@testable import ClawTalkTalk

@Suite("Streamed replies that rewrite themselves (talk.md §4.3)", .serialized, .timeLimit(.minutes(1)))
struct ReplyRewriteTests {
    /// How the transcript goes out and the reply is followed.
    enum Path: String, Sendable {
        /// Push-to-talk over `chat.send`: the run id is known, speech streams through `talk.speak`.
        case chatSend = "chat.send"
        /// A wake command over `voice.transcript` with the operator up: the node adopts the first
        /// run of its subscription, speech streams through `talk.speak`.
        case voiceTranscript = "voice.transcript"
        /// Node-only: `voice.transcript`, espeak-ng, and nothing spoken before the final (talk.md §4.2).
        case nodeOnly = "node-only"
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var form: TestGatewayConfiguration.ChatDeltaForm
        var path: Path
        var testDescription: String { "\(form), \(path.rawValue)" }
    }

    /// A reply rewritten twice while it streams: first mid-sentence, repeating the sentence
    /// already spoken ("three meet" is discarded), then restarted from scratch by a new LLM call
    /// ("The first" is discarded).
    static let run: [ChatScriptStep] = [
        .delta("Let me check your calendar. You have three meet"),
        .pause(ms: 300),
        .delta("Let me check your calendar. You have two meetings today. The first"),
        .pause(ms: 300),
        .delta("Your first meeting is at nine. The"),
        .delta("Your first meeting is at nine. The second is at noon."),
        .final("Your first meeting is at nine. The second is at noon."),
    ]

    static let streamed = [
        "Let me check your calendar.", "You have two meetings today.", "Your first meeting is at nine.",
        "The second is at noon.",
    ]

    @Test(
        arguments: [TestGatewayConfiguration.ChatDeltaForm.cumulative, .marked].flatMap { form in
            [Path.chatSend, .voiceTranscript, .nodeOnly].map { Case(form: form, path: $0) }
        })
    func aRewriteMidReplySpeaksNothingDiscardedAndNoSentenceTwice(testCase: Case) async throws {
        let harness = try GatewayHarness { $0.chatDeltaForm = testCase.form }
        await harness.gateway.enqueueChatRun(Self.run)
        if testCase.path == .nodeOnly {
            try await harness.startNode()
        } else {
            try await harness.startBoth()
        }
        let stack = await TalkStack(harness: harness)
        let updates = Locked<[ReplyUpdate]>([])
        let stream = await stack.tracker.updates()
        let recorder = Task { for await update in stream { updates.update { $0.append(update) } } }
        defer { recorder.cancel() }
        let receipt =
            testCase.path == .chatSend
            ? await stack.delivery.deliver("what is on today?", source: .pushToTalk)
            : await stack.delivery.deliver("what is on today?", source: .voiceWake, trigger: "computer")
        #expect(receipt.outcome == .sent(route: testCase.path == .chatSend ? .chatSend : .voiceTranscript))
        let ended = try await stack.event {
            switch $0 {
            case .spoke, .failed: true
            case .speaking: false
            }
        }
        guard case .spoke(_, let result) = ended else {
            Issue.record("expected speech, got \(ended)")
            return
        }
        #expect(result.outcome == .finished)
        // What the node handed to speech, in order.
        let spoken =
            testCase.path == .nodeOnly
            ? stack.local.texts
            : await harness.operatorCalls("talk.speak").compactMap { $0["text"]?.stringValue }
        if testCase.path == .nodeOnly {
            #expect(spoken == Array(Self.streamed.suffix(2)))
        } else {
            // "You have two meetings today." may be withdrawn by the restart before it reached
            // synthesis (a slow machine): dropped is right then, as it was not yet spoken.
            let withdrawn = Self.streamed.filter { $0 != "You have two meetings today." }
            #expect(spoken == Self.streamed || spoken == withdrawn, "\(spoken)")
            // The restart withdraws the old draft before the new draft's first segment.
            let order = updates.value.compactMap { update -> String? in
                switch update {
                case .segment(_, let index, let text, _): "\(index) \(text)"
                case .withdrawn(_, let segments): "withdrawn \(segments)"
                case .finished, .failed: nil
                }
            }
            // The first rewrite repeats sentence 0 before it says anything new: nothing is
            // withdrawn. The second discards both sentences of the old draft.
            #expect(
                order == [
                    "0 \(Self.streamed[0])", "1 \(Self.streamed[1])", "withdrawn [0, 1]", "2 \(Self.streamed[2])",
                    "3 \(Self.streamed[3])",
                ], "\(order)")
        }
        // `say --last` repeats the reply as it finally read.
        #expect(try stack.lastReply.load()?.text == "Your first meeting is at nine. The second is at noon.")
        await stack.stop()
    }
}
