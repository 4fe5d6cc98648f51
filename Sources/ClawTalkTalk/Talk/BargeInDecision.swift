import Foundation

/// Whether speech heard while a reply plays interrupts it (talk-contract §5.5, macOS
/// `shouldInterrupt`): a pure function of the transcript, the text being spoken, how recently
/// the microphone heard speech energy and the engine's confidence.
public enum BargeInDecision {
    /// The verdict, with the rule that refused.
    public enum Verdict: String, Sendable, Hashable, CaseIterable {
        /// Stop playback and start the next turn.
        case interrupt
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
        return .interrupt
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
