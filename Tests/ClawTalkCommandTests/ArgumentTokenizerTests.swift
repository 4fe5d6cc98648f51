import ClawTalkCommand
import Testing

@Suite("Phase 1: tokenizer")
struct ArgumentTokenizerTests {
    typealias T = ArgumentToken

    static let cases: [(arguments: [String], tokens: [ArgumentToken])] = [
        ([], []),
        (["--x=y"], [T(.long("x", value: "y"), position: 0)]),
        (["--x", "y"], [T(.long("x", value: nil), position: 0), T(.value("y"), position: 1)]),
        (["--x="], [T(.long("x", value: ""), position: 0)]),
        (["--x=a=b"], [T(.long("x", value: "a=b"), position: 0)]),
        (["-vq"], [T(.short("v"), position: 0), T(.short("q"), position: 0)]),
        (["-o", "value"], [T(.short("o"), position: 0), T(.value("value"), position: 1)]),
        (["a", "-v", "b"], [T(.value("a"), position: 0), T(.short("v"), position: 1), T(.value("b"), position: 2)]),
        (["-"], [T(.value("-"), position: 0)]),
        (
            ["-5", "-0.5", "-.5"],
            [T(.value("-5"), position: 0), T(.value("-0.5"), position: 1), T(.value("-.5"), position: 2)]
        ),
        (["--"], [T(.terminator, position: 0)]),
        (
            ["a", "--", "-v", "--x", "--"],
            [
                T(.value("a"), position: 0), T(.terminator, position: 1), T(.value("-v"), position: 2),
                T(.value("--x"), position: 3), T(.value("--"), position: 4),
            ]
        ),
        (["--help", "-h"], [T(.long("help", value: nil), position: 0), T(.short("h"), position: 1)]),
    ]

    @Test(arguments: cases)
    func tokenizes(arguments: [String], tokens: [ArgumentToken]) {
        #expect(ArgumentTokenizer.tokenize(arguments) == tokens)
    }

    static let displays: [(ArgumentToken.Kind, String)] = [
        (.long("file", value: "x"), "--file"), (.short("v"), "-v"), (.value("text"), "text"), (.terminator, "--"),
    ]

    @Test(arguments: displays)
    func displaysTokensAsTyped(kind: ArgumentToken.Kind, display: String) {
        #expect(ArgumentToken(kind, position: 0).display == display)
    }

    static let helpRequests: [(ArgumentToken.Kind, Bool)] = [
        (.long("help", value: nil), true), (.short("h"), true), (.long("help", value: "x"), false),
        (.value("help"), false), (.long("helpful", value: nil), false), (.short("H"), false),
    ]

    @Test(arguments: helpRequests)
    func recognisesHelpRequests(kind: ArgumentToken.Kind, isHelp: Bool) {
        #expect(ArgumentToken(kind, position: 3).isHelpRequest == isHelp)
    }
}
