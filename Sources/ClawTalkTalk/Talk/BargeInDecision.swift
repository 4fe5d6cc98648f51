import Foundation

/// Whether speech heard while a reply plays interrupts it (talk.md §5.5, macOS
/// `shouldInterrupt`): a pure function of the transcript, the text being spoken, how recently
/// the microphone heard speech energy and the engine's confidence.
public enum BargeInDecision {
    /// The verdict, with the rule that refused.
    public enum Verdict: String, Sendable, Hashable, CaseIterable {
        /// Stop playback and start the next turn.
        case interrupt
        /// A spoken stop phrase ("stop", "cancel", …; talk.md §10): stop playback and
        /// listen again without sending the phrase as a turn.
        case stopPhrase
        /// Fewer than 3 characters (after trimming).
        case tooShort
        /// The transcript is part of the text being spoken: the node heard its own voice.
        case echo
        /// No speech energy within the last 0.35 s of the transcribed audio.
        case noRecentSpeech
        /// The engine reported a confidence of 0.6 or less.
        case lowConfidence
    }

    /// Minimum transcript length (characters).
    public static let minimumCharacters = 3
    /// Speech energy must be this recent (seconds).
    public static let recentSpeechWindow = 0.35
    /// A reported confidence must exceed this.
    public static let minimumConfidence = 0.6
    /// Utterances that only stop the reply (normalized: lowercase, no punctuation or
    /// apostrophes), optionally with a polite word around them (``politeWords``).
    public static let stopPhrases: Set<String> = [
        "stop", "cancel", "stop it", "stop talking", "stop that", "be quiet", "quiet", "shut up", "enough",
        "thats enough", "never mind", "nevermind", "silence", "hush",
    ]
    /// Words allowed before or after a stop phrase ("okay stop", "stop please").
    public static let politeWords: Set<String> = ["ok", "okay", "please", "hey", "oh", "now", "just"]

    /// Judges `transcript` heard while `spokenText` plays; `secondsSinceSpeech` is the time from
    /// the last frame with speech energy to the end of the transcribed audio (with a streaming
    /// recognizer that is "now"; with a batch one it is when the audio was cut, so a slow
    /// transcriber does not make real speech stale); `confidence` is the engine's (nil: not
    /// reported, so not checked).
    public static func verdict(
        transcript: String, spokenText: String, secondsSinceSpeech: Double, confidence: Double?
    ) -> Verdict {
        let heard = transcript.trimmingCharacters(in: .whitespacesAndNewlines)
        guard heard.count >= minimumCharacters else { return .tooShort }
        let needle = normalize(heard)
        if needle.isEmpty || normalize(spokenText).contains(needle) { return .echo }
        guard secondsSinceSpeech <= recentSpeechWindow + 1e-9 else { return .noRecentSpeech }
        if let confidence, confidence <= minimumConfidence { return .lowConfidence }
        return isStopPhrase(needle) ? .stopPhrase : .interrupt
    }

    /// Whether `normalized` (see ``normalize(_:)``) is a stop phrase, polite words aside.
    public static func isStopPhrase(_ normalized: String) -> Bool {
        var words = normalized.split(separator: " ").map(String.init)
        while let first = words.first, politeWords.contains(first), words.count > 1 { words.removeFirst() }
        while let last = words.last, politeWords.contains(last), words.count > 1 { words.removeLast() }
        return stopPhrases.contains(words.joined(separator: " "))
    }

    /// Lowercased, punctuation dropped, whitespace runs collapsed to one space (so an echo
    /// transcribed with other punctuation or spacing still matches).
    public static func normalize(_ text: String) -> String {
        var out = ""
        var pendingSpace = false
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                if pendingSpace, !out.isEmpty { out.append(" ") }
                pendingSpace = false
                out.append(character)
            } else if character.isWhitespace {
                pendingSpace = true
            } else if character == "'" || character == "\u{2019}" {
                continue
            } else {
                pendingSpace = true
            }
        }
        return out
    }
}
