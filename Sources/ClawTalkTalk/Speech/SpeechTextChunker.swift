import ClawTalkSpeech
import Foundation

/// Splits text longer than one synthesis request allows (4000 characters, talk.md §7.5)
/// at sentence boundaries; a single sentence longer than the limit is cut at whitespace.
enum SpeechTextChunker {
    /// The request-sized pieces of `text`, trimmed, in order; empty for blank text.
    static func chunks(_ text: String, limit: Int = 4000) -> [String] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return [] }
        guard trimmed.count > limit else { return [trimmed] }
        var chunks: [String] = []
        var current = ""
        for sentence in SentenceSplitter.split(trimmed, softLimit: Int.max).flatMap({ cut($0, limit: limit) }) {
            if current.isEmpty {
                current = sentence
            } else if current.count + 1 + sentence.count <= limit {
                current += " " + sentence
            } else {
                chunks.append(current)
                current = sentence
            }
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }

    /// `sentence` in pieces of at most `limit` characters, cut at the last whitespace that fits.
    private static func cut(_ sentence: String, limit: Int) -> [String] {
        var rest = Substring(sentence)
        var pieces: [String] = []
        while rest.count > limit {
            let window = rest.prefix(limit + 1)
            var end = window.lastIndex(where: \.isWhitespace) ?? rest.index(rest.startIndex, offsetBy: limit)
            if end == rest.startIndex { end = rest.index(rest.startIndex, offsetBy: limit) }
            pieces.append(rest[..<end].trimmingCharacters(in: .whitespacesAndNewlines))
            rest = rest[end...].drop(while: \.isWhitespace)
        }
        if !rest.isEmpty { pieces.append(String(rest)) }
        return pieces.filter { !$0.isEmpty }
    }
}
