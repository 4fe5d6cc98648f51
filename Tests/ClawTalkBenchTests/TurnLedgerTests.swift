import Testing

@testable import ClawTalkBench

/// The lost-turn count: deliveries matched to questions by text, each question once, lost or
/// duplicated, and a garbled delivery in a missing question's place that question misheard.
@Suite("Turn ledger")
struct TurnLedgerTests {
    static let questions = ["set a timer for ten minutes", "what's the capital of Canada", "turn on the heating"]

    @Test func eachQuestionDeliveredOnceIsCountedOnce() {
        let count = TurnLedger.count(
            questions: Self.questions,
            deliveries: ["Set a timer for 10 minutes.", "What's the capital of Canada?", "Turn on the heating."])
        #expect(count == TurnLedger.Count(once: 3, lost: 0, duplicated: 0, unmatched: 0))
    }

    @Test func aMissingQuestionIsLostATwiceDeliveredOneDuplicatedAndNoiseOutOfPlaceUnmatched() {
        let count = TurnLedger.count(
            questions: Self.questions,
            deliveries: [
                "set a timer for ten minutes", "turn on the heating", "Turn on the heating.", "Thank you.",
            ])
        #expect(count == TurnLedger.Count(once: 1, lost: 1, duplicated: 1, unmatched: 1))
    }

    @Test(arguments: [
        // (deliveries, expected): a garbled delivery where a question nothing else carried belongs
        // is that question misheard; elsewhere, or beside more missing questions than garbled
        // deliveries, it is noise and the questions are lost.
        (
            ["set a timer for ten minutes", "Harmony Meditation Renate", "turn on the heating"],
            TurnLedger.Count(once: 3, lost: 0, duplicated: 0, unmatched: 0, misheard: 1)
        ),
        (
            ["Harmony Meditation Renate", "what's the capital of Canada", "turn on the heating"],
            TurnLedger.Count(once: 3, lost: 0, duplicated: 0, unmatched: 0, misheard: 1)
        ),
        (
            ["set a timer for ten minutes", "Thank you."],
            TurnLedger.Count(once: 1, lost: 2, duplicated: 0, unmatched: 1, misheard: 0)
        ),
        (
            ["set a timer for ten minutes", "Thank you.", "you", "turn on the heating"],
            TurnLedger.Count(once: 2, lost: 1, duplicated: 0, unmatched: 2, misheard: 0)
        ),
        (
            ["Thank you.", "set a timer for ten minutes", "what's the capital of Canada", "turn on the heating"],
            TurnLedger.Count(once: 3, lost: 0, duplicated: 0, unmatched: 1, misheard: 0)
        ),
    ])
    func aGarbledDeliveryInAMissingQuestionsPlaceIsItMisheard(deliveries: [String], expected: TurnLedger.Count) {
        #expect(TurnLedger.count(questions: Self.questions, deliveries: deliveries) == expected)
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
