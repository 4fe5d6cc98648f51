import ClawTalkSpeech
import Testing

@Suite struct TriggerTextTests {
    @Test(arguments: [
        ("Computer", "computer"),
        ("  COMPUTER!!  ", "computer"),
        ("Clàude", "claude"),
        ("ＣＯＭＰＵＴＥＲ", "computer"),
        ("Ｏｐｅｎ-Claw", "open claw"),
        ("hey_jarvis", "hey jarvis"),
        ("Hey, Jarvis.", "hey jarvis"),
        ("what's up", "whats up"),
        ("Claude’s", "claudes"),
        ("Straße", "strasse"),
        ("r2-d2", "r2 d2"),
        ("...", ""),
        ("", ""),
    ])
    func normalizes(input: String, expected: String) {
        #expect(TriggerText.normalize(input) == expected)
    }

    @Test func keyIgnoresWordBreaks() {
        #expect(TriggerText.key("Open Claw") == "openclaw")
        #expect(TriggerText.key("open-claw") == TriggerText.key("OpenClaw"))
        #expect(TriggerText.key("hey jarvis") != TriggerText.key("jarvis"))
    }

    @Test func confusionsAreKeyedByNormalizedTrigger() {
        let table = TriggerConfusions(["Open Claw": ["Open Club"]])
        #expect(table.keys(for: "openclaw") == ["openclaw", "openclub"])
        #expect(TriggerConfusions.none.keys(for: "claude") == ["claude"])
        #expect(!TriggerConfusions.standard.keys(for: "claude").contains("cloud"))
    }
}
