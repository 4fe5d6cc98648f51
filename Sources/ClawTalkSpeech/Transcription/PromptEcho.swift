/// Recognises transcripts that only repeat the prompt.
///
/// Whisper given an initial prompt answers pure noise with the prompt itself (seen: faster-whisper
/// base with `"OpenClaw, Claude, computer."` returned exactly that on every noise clip,
/// architecture.md §7.4). Such output must never count as speech. A transcript is an echo when,
/// compared by lower-cased letter-and-digit words:
/// - its words spell the prompt (spacing and punctuation ignored: `"Open claw, Claude, computer"`), or
/// - it has two or more words and every one of them is a prompt word (`"Claude, computer."`).
///
/// A single prompt word on its own (`"Computer."`) is kept: a spoken trigger with nothing after it
/// is a real utterance (the trigger-only pause of the voice-wake contract, talk.md §6.3), and would be
/// lost otherwise.
public enum PromptEcho {
    /// Whether `text` only echoes `prompt` (phrases such as the wake triggers).
    public static func isEcho(_ text: String, prompt: [String]) -> Bool {
        let words = normalizedWords(text)
        let promptWords = prompt.flatMap(normalizedWords)
        guard !words.isEmpty, !promptWords.isEmpty else { return false }
        if words.joined() == promptWords.joined() { return true }
        // A phrase also counts as one word when written together ("open claw" → "openclaw").
        let vocabulary = Set(promptWords).union(prompt.map { normalizedWords($0).joined() })
        return words.count >= 2 && words.allSatisfy(vocabulary.contains)
    }

    /// Whether `text` echoes any of `prompts` (the request's prompt, the server's own).
    public static func isEcho(_ text: String, prompts: [[String]]) -> Bool {
        prompts.contains { isEcho(text, prompt: $0) }
    }

    /// Lower-cased runs of letters and digits: `"Set a timer, 10 min!"` → `set a timer 10 min`.
    public static func normalizedWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if character != "'" && character != "\u{2019}" {
                if !current.isEmpty { words.append(current) }
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// Splits a prompt text such as `"OpenClaw, Claude, computer."` into its comma-separated phrases.
    public static func phrases(ofPromptText text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == "." })
            .map { String($0).trimmingWhitespace() }
            .filter { !$0.isEmpty }
    }
}
