/// The prompt text around a transcript (talk.md §3.4, §3.5).
enum PromptBuilder {
    /// `(The user interrupted your previous spoken reply after 3.2 s.)`
    static func interruptionNote(seconds: Double) -> String {
        let tenths = Int((max(0, seconds) * 10).rounded())
        return "(The user interrupted your previous spoken reply after \(tenths / 10).\(tenths % 10) s.)"
    }

    /// The transcript, after the interruption note when the previous reply was barged in.
    static func message(_ transcript: String, interruptedAfter seconds: Double?) -> String {
        guard let seconds else { return transcript }
        return interruptionNote(seconds: seconds) + "\n" + transcript
    }

    /// The `agent` route's first line (macOS style) followed by the message.
    static func agentMessage(_ message: String, host: String) -> String {
        "This request came by voice from \(host). Repeat the prompt back first; words may be mis-transcribed.\n"
            + message
    }
}
