import Foundation

/// Cuts text into speakable segments so synthesis of the next one can overlap playback of the
/// current one (talk.md §7.4, §7.6).
///
/// A segment ends after `.`, `!`, `?` or a newline followed by whitespace or the end, or at the
/// last whitespace once `softLimit` characters have accumulated. Empty segments are dropped.
public enum SentenceSplitter {
    /// Segments of `text`, trimmed, in order.
    public static func split(_ text: String, softLimit: Int = 72) -> [String] {
        var segments: [String] = []
        var current = ""
        var chars = Array(text)
        chars.append(" ")
        var index = 0
        func flush() {
            let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { segments.append(trimmed) }
            current = ""
        }
        while index < chars.count - 1 {
            let c = chars[index]
            current.append(c)
            let next = chars[index + 1]
            if c == "\n" || (".!?".contains(c) && next.isWhitespace) {
                flush()
            } else if current.count >= softLimit, next.isWhitespace {
                flush()
            }
            index += 1
        }
        flush()
        return segments
    }
}
