import Testing

@testable import ClawTalkBench

/// The turn bench's WER: folded words, word-level edit distance over the reference's length.
@Suite("Word error rate")
struct WordErrorRateTests {
    /// One comparison and its expected edits and reference words.
    struct Case: Sendable, CustomTestStringConvertible {
        var reference: String
        var hypothesis: String
        var edits: Int
        var words: Int

        var testDescription: String { "\(reference) | \(hypothesis)" }
    }

    static let cases: [Case] = [
        Case(reference: "what time is it", hypothesis: "What time is it?", edits: 0, words: 4),
        Case(
            reference: "what's the weather like in Paris tomorrow",
            hypothesis: "Whats the weather like in paris, tomorrow.", edits: 0, words: 7),
        Case(reference: "set a timer for ten minutes", hypothesis: "Set a timer for 10 minutes.", edits: 0, words: 6),
        Case(reference: "what time is it", hypothesis: "what tim is it", edits: 1, words: 4),
        Case(reference: "what time is it", hypothesis: "what is it", edits: 1, words: 4),
        Case(reference: "what time is it", hypothesis: "so what time is it now", edits: 2, words: 4),
        Case(reference: "turn off the lights", hypothesis: "", edits: 4, words: 4),
        Case(reference: "turn off the lights", hypothesis: "lights the off turn", edits: 4, words: 4),
        Case(reference: "", hypothesis: "", edits: 0, words: 0),
        Case(reference: "", hypothesis: "hello", edits: 1, words: 0),
        Case(reference: "play some jazz", hypothesis: "computer, play some jazz", edits: 1, words: 3),
    ]

    @Test(arguments: cases) func editsAndWords(_ item: Case) {
        let tally = WordErrorRate.tally(reference: item.reference, hypothesis: item.hypothesis)
        #expect(tally == WordErrorRate.Tally(edits: item.edits, words: item.words))
    }

    @Test func theRateIsEditsOverReferenceWordsAndTalliesAddUp() {
        #expect(WordErrorRate.rate(reference: "what time is it", hypothesis: "what is it") == 0.25)
        #expect(WordErrorRate.rate(reference: "", hypothesis: "hello") == 1)
        #expect(WordErrorRate.rate(reference: "", hypothesis: "") == 0)
        let sum =
            WordErrorRate.tally(reference: "a b c d", hypothesis: "a b c")
            + WordErrorRate.tally(reference: "e f", hypothesis: "e g")
        #expect(sum == WordErrorRate.Tally(edits: 2, words: 6))
        #expect(sum.rate == 2.0 / 6.0)
    }

    @Test func foldingDropsCaseApostrophesAndPunctuationAndWritesNumberWordsAsDigits() {
        #expect(WordErrorRate.words("What's the time, Ten-Thirty?") == ["whats", "the", "time", "10", "30"])
        #expect(WordErrorRate.words("  ") == [])
    }
}
