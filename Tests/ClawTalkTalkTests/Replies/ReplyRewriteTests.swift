import ClawTalkProtocol
import ClawTalkTesting
import Testing

@testable import ClawTalkTalk

@Suite("Streamed replies that rewrite themselves (§4.3)", .serialized, .timeLimit(.minutes(1)))
struct ReplyRewriteTests {
    /// How the transcript goes out and the reply is followed.
    enum Path: String, Sendable {
        /// Push-to-talk over `chat.send`: the run id is known, speech streams through `talk.speak`.
        case chatSend = "chat.send"
        /// A wake command over `voice.transcript` with the operator up: the node adopts the first
        /// run of its subscription, speech streams through `talk.speak`.
        case voiceTranscript = "voice.transcript"
        /// Node-only: `voice.transcript`, espeak-ng, and nothing spoken before the final (§4.2).
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
        #expect(spoken == (testCase.path == .nodeOnly ? Array(Self.streamed.suffix(2)) : Self.streamed))
        // `say --last` repeats the reply as it finally read.
        #expect(try stack.lastReply.load()?.text == "Your first meeting is at nine. The second is at noon.")
        await stack.stop()
    }
}
