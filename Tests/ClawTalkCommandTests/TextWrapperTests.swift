import ClawTalkCommand
import Testing

@Suite("Text wrapping")
struct TextWrapperTests {
    static let cases: [(text: String, width: Int, indent: Int, expected: String)] = [
        ("hello world", 11, 0, "hello world"),
        ("hello world", 8, 0, "hello\nworld"),
        ("hello world", 20, 4, "    hello world"),
        ("hello world", 12, 4, "    hello\n    world"),
        ("a\n\nb", 80, 2, "  a\n\n  b"),
        ("abcdefghij klm", 5, 0, "abcdefghij\nklm"),
        ("abcdefghij", 5, 0, "abcdefghij"),
        ("one two three four", 10, 0, "one two\nthree four"),
        ("  0   success\n  1   failure", 80, 0, "  0   success\n  1   failure"),
        ("", 80, 26, ""),
    ]

    @Test(arguments: cases)
    func wraps(text: String, width: Int, indent: Int, expected: String) {
        #expect(TextWrapper.wrap(text, width: width, indent: indent) == expected)
    }

    @Test func noWrappedLineExceedsTheWidthWhenWordsFit() {
        let words = (1...60).map { String(repeating: "w", count: $0 % 9 + 1) }.joined(separator: " ")
        let wrapped = TextWrapper.wrap(words, width: 40, indent: 6)
        let lines = wrapped.split(separator: "\n")
        #expect(lines.count > 5)
        for line in lines {
            #expect(line.count <= 40)
            #expect(line.hasPrefix("      "))
            #expect(!line.dropFirst(6).hasPrefix(" "))
        }
        #expect(lines.map { $0.dropFirst(6) }.joined(separator: " ") == words)
    }
}
