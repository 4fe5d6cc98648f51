/// What a caller may tell a ``Transcriber`` about one utterance.
public struct TranscriptionOptions: Sendable, Hashable {
    /// Language as a BCP-47 tag (`en`, `en-US`); nil leaves it to the engine or server default.
    public var language: String?
    /// Words or phrases the speech is expected to contain (the wake triggers), used to bias
    /// recognition where the engine supports it; empty for none.
    public var prompt: [String]
    /// Ask the engine whether the speaker's turn is complete (``Transcript/turnComplete``), where
    /// it can tell (clawtalk-speech with its end-of-turn model).
    public var detectTurn: Bool

    /// Creates options.
    public init(language: String? = nil, prompt: [String] = [], detectTurn: Bool = false) {
        self.language = language
        self.prompt = prompt
        self.detectTurn = detectTurn
    }

    /// The prompt as Whisper's `initial_prompt` text: `"openclaw, claude, computer."`; nil when empty.
    public var promptText: String? {
        let phrases = prompt.map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        return phrases.isEmpty ? nil : phrases.joined(separator: ", ") + "."
    }

    /// The primary language subtag, lower-cased (`en-US` → `en`, `pt_BR` → `pt`); nil for none.
    public var languageCode: String? {
        guard let language else { return nil }
        let code = language.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() }
        return code?.isEmpty == false ? code : nil
    }
}

extension String {
    /// The string without leading and trailing whitespace (Foundation-free).
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }
}
