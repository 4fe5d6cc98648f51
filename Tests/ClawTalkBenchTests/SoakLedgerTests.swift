import Testing

@testable import ClawTalkBench

/// The soak's verdicts: each utterance delivered exactly once, late deliveries counted for the
/// utterance that said them, and the RSS trend after warm-up.
@Suite("Soak ledger")
struct SoakLedgerTests {
    @Test func eachUtteranceOwnsTheMessagesWithItsKeywordUntilTheKeywordComesAgain() {
        var ledger = SoakLedger()
        _ = ledger.said(.wake, keyword: "France", messages: 0)
        _ = ledger.said(.pttOnce, keyword: "Spain", messages: 1)
        _ = ledger.said(.talk, keyword: "France", messages: 3)
        let messages = [
            "What is the capital of France?",
            // Spain's arrives late, after a reconnect, and twice.
            "unrelated",
            #"{"transcript":"what is the capital of spain"}"#,
            "What is the capital of France",
            "what is the capital of Spain?",
        ]
        let verdicts = ledger.verdicts(messages: messages)
        #expect(verdicts.map(\.deliveries) == [1, 2, 1])
    }

    @Test func aLostUtteranceHasNoDeliveryAndAMisheardOneHasAMessageWithoutAnyKeyword() {
        var ledger = SoakLedger()
        _ = ledger.said(.wake, keyword: "Peru", messages: 0)
        _ = ledger.said(.talk, keyword: "bicycle", messages: 1)
        _ = ledger.said(.talk, keyword: "robot", messages: 2)
        let verdicts = ledger.verdicts(messages: ["tell me about robots", "tell me a story about my sickles."])
        #expect(verdicts.map(\.deliveries) == [0, 0, 0])
        // Peru's window holds a message with robot's keyword: lost. bicycle's holds one without any.
        #expect(verdicts.map(\.misheard) == [0, 1, 0])
    }

    @Test func aKeywordStartsAWord() {
        #expect(SoakLedger.carries("Tell me a story about Dragons.", "dragon"))
        #expect(!SoakLedger.carries("Tell me a story about snapdragons.", "dragon"))
    }

    @Test func growthPerHourIsTheSlopeAfterWarmUp() throws {
        // 100 MiB for the first five minutes, then 50 MiB growing by 1 MiB every 10 minutes.
        let samples = (0..<60).map { minute -> (seconds: Double, value: Double) in
            let seconds = Double(minute) * 60
            return (seconds, minute < 5 ? 100 : 50 + Double(minute) / 10)
        }
        let growth = try #require(SoakLedger.growthPerHour(samples, warmUp: 300))
        #expect(abs(growth - 6) < 1e-9)
        #expect(SoakLedger.growthPerHour(Array(samples.prefix(5)), warmUp: 300) == nil)
    }
}
