import Foundation
import Testing

@testable import ClawTalkSpeech

@Suite struct SentenceSplitterTests {
    static let cases: [(String, [String])] = [
        ("Hello there. How are you?", ["Hello there.", "How are you?"]),
        ("Version 1.5 is out! Great", ["Version 1.5 is out!", "Great"]),
        ("line one\nline two", ["line one", "line two"]),
        ("   ", []),
        ("No punctuation at all", ["No punctuation at all"]),
        ("Wait... what?", ["Wait...", "what?"]),
    ]

    @Test(arguments: cases)
    func splitsAtSentenceEnds(text: String, expected: [String]) {
        #expect(SentenceSplitter.split(text) == expected)
    }

    @Test func longRunsAreCutAtWhitespaceAfterTheSoftLimit() {
        let text = String(repeating: "word ", count: 40)
        let segments = SentenceSplitter.split(text, softLimit: 20)
        #expect(segments.count > 1)
        #expect(segments.allSatisfy { $0.count <= 24 })
        #expect(segments.joined(separator: " ") == text.trimmingCharacters(in: .whitespaces))
    }
}
