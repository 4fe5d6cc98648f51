import Testing

@testable import ClawTalkBench

/// The lost-turn count: deliveries matched to questions by text, each question once, lost or
/// duplicated.
@Suite("Turn ledger")
struct TurnLedgerTests {
    static let questions = ["set a timer for ten minutes", "what's the capital of Canada", "turn on the heating"]

    @Test func eachQuestionDeliveredOnceIsCountedOnce() {
        let count = TurnLedger.count(
            questions: Self.questions,
            deliveries: ["Set a timer for 10 minutes.", "What's the capital of Canada?", "Turn on the heating."])
        #expect(count == TurnLedger.Count(once: 3, lost: 0, duplicated: 0, unmatched: 0))
    }

    @Test func aMissingQuestionIsLostATwiceDeliveredOneDuplicatedAndNoiseUnmatched() {
        let count = TurnLedger.count(
            questions: Self.questions,
            deliveries: [
                "set a timer for ten minutes", "Thank you.", "turn on the heating", "Turn on the heating.",
            ])
        #expect(count == TurnLedger.Count(once: 1, lost: 1, duplicated: 1, unmatched: 1))
    }

    @Test func aSlightlyMisheardDeliveryStillBelongsToItsQuestion() {
        #expect(TurnLedger.owner(of: "what is the capital of canada", questions: Self.questions) == 1)
        #expect(TurnLedger.owner(of: "turn on the eating", questions: Self.questions) == 2)
        #expect(TurnLedger.owner(of: "you", questions: Self.questions) == nil)
    }

    @Test func countsAddUp() {
        let one = TurnLedger.Count(once: 2, lost: 1, duplicated: 0, unmatched: 1)
        #expect(one + one == TurnLedger.Count(once: 4, lost: 2, duplicated: 0, unmatched: 2))
    }
}
