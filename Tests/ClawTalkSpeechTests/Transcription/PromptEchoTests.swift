import ClawTalkSpeech
import Testing

@Suite struct PromptEchoTests {
    static let triggers = ["openclaw", "claude", "computer"]

    @Test(arguments: [
        " OpenClaw, Claude, computer.",
        "openclaw claude computer",
        "Open claw, Claude, Computer!",
        "Claude, computer.",
        "OpenClaw, Claude, computer. OpenClaw, Claude, computer.",
    ])
    func echoesAreRecognised(text: String) {
        #expect(PromptEcho.isEcho(text, prompt: Self.triggers))
    }

    @Test(arguments: [
        "Computer.",
        "Computer, set a timer for ten minutes.",
        "Set a timer for 10 minutes.",
        "",
        "...",
    ])
    func speechIsKept(text: String) {
        #expect(!PromptEcho.isEcho(text, prompt: Self.triggers))
    }

    @Test func noPromptMeansNoEcho() {
        #expect(!PromptEcho.isEcho("OpenClaw, Claude, computer.", prompt: []))
        #expect(PromptEcho.isEcho("Claude, computer.", prompts: [[], Self.triggers]))
    }

    @Test func wordsAndPhrasesAreNormalised() {
        #expect(PromptEcho.normalizedWords("Set a timer, 10 min! Don't") == ["set", "a", "timer", "10", "min", "dont"])
        #expect(PromptEcho.phrases(ofPromptText: "OpenClaw, Claude, computer.") == ["OpenClaw", "Claude", "computer"])
    }

    @Test func optionsGiveThePromptTextAndLanguageCode() {
        let options = TranscriptionOptions(language: "en-US", prompt: ["openclaw", " claude ", ""])
        #expect(options.promptText == "openclaw, claude.")
        #expect(options.languageCode == "en")
        #expect(TranscriptionOptions(language: "pt_BR").languageCode == "pt")
        #expect(TranscriptionOptions().promptText == nil)
        #expect(TranscriptionOptions().languageCode == nil)
    }
}
