import ClawTalkCommand
import Testing

@Suite("Suggestions")
struct NameSuggesterTests {
    static let names = ["run", "pair", "status", "devices", "say", "ptt", "bench", "doctor", "version"]

    static let cases: [(String, String?)] = [
        ("devics", "devices"),
        ("devcies", "devices"),
        ("stauts", "status"),
        ("stat", "status"),
        ("vers", "version"),
        ("doctr", "doctor"),
        ("rn", "run"),
        ("rnu", "run"),
        ("strat", nil),
        ("pt", "ptt"),
        ("banana", nil),
        ("x", nil),
        ("", nil),
    ]

    @Test(arguments: cases)
    func suggestsNearNames(typed: String, expected: String?) {
        #expect(NameSuggester.suggestion(for: typed, among: Self.names) == expected)
    }

    static let distances: [(String, String, Int)] = [
        ("", "", 0), ("", "abc", 3), ("abc", "", 3), ("kitten", "sitting", 3), ("devics", "devices", 1),
        ("same", "same", 0), ("ab", "ba", 1),
        ("stauts", "status", 1), ("ca", "abc", 3),
    ]

    @Test(arguments: distances)
    func computesEditDistance(a: String, b: String, distance: Int) {
        #expect(NameSuggester.editDistance(a, b) == distance)
        #expect(NameSuggester.editDistance(b, a) == distance)
    }
}
