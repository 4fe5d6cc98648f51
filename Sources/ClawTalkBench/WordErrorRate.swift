/// Word error rate of a delivered transcript against the text that was spoken, pure.
///
/// Both sides are folded first: lower case, apostrophes dropped ("what's" → "whats"), every
/// other character that is neither a letter nor a digit a word break, and the number words
/// zero…twenty and the tens up to a hundred written as digits (Whisper writes "set a timer for
/// 10 minutes" for "ten minutes"). Then the word-level edit distance (substitutions, deletions,
/// insertions) over the reference's word count.
enum WordErrorRate {
    /// Edits and reference words of one comparison; ``rate`` is their ratio.
    struct Tally: Sendable, Equatable {
        /// Substitutions, deletions and insertions.
        var edits: Int
        /// Words in the reference.
        var words: Int

        /// Edits per reference word; an empty reference scores 0 when nothing was said back, else 1.
        var rate: Double {
            guard words > 0 else { return edits == 0 ? 0 : 1 }
            return Double(edits) / Double(words)
        }

        /// Sums edits and words (a corpus-level WER over several utterances).
        static func + (lhs: Tally, rhs: Tally) -> Tally {
            Tally(edits: lhs.edits + rhs.edits, words: lhs.words + rhs.words)
        }
    }

    /// `hypothesis` (what arrived) scored against `reference` (what was said).
    static func tally(reference: String, hypothesis: String) -> Tally {
        let expected = words(reference)
        let heard = words(hypothesis)
        return Tally(edits: distance(expected, heard), words: expected.count)
    }

    /// The WER of `hypothesis` against `reference`.
    static func rate(reference: String, hypothesis: String) -> Double {
        tally(reference: reference, hypothesis: hypothesis).rate
    }

    /// The folded words of `text`.
    static func words(_ text: String) -> [String] {
        var folded = ""
        for character in text.lowercased() {
            if character == "'" || character == "’" { continue }
            folded.append(character.isLetter || character.isNumber ? character : " ")
        }
        return folded.split(separator: " ").map { numbers[String($0)] ?? String($0) }
    }

    /// Number words written as digits.
    static let numbers: [String: String] = {
        let units = [
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
            "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
        ]
        var table = Dictionary(uniqueKeysWithValues: units.enumerated().map { ($1, String($0)) })
        for (index, tens) in ["thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"].enumerated() {
            table[tens] = String((index + 3) * 10)
        }
        table["hundred"] = "100"
        return table
    }()

    /// Levenshtein distance over words.
    static func distance(_ reference: [String], _ hypothesis: [String]) -> Int {
        guard !reference.isEmpty else { return hypothesis.count }
        guard !hypothesis.isEmpty else { return reference.count }
        var previous = Array(0...hypothesis.count)
        var current = previous
        for (row, word) in reference.enumerated() {
            current[0] = row + 1
            for column in 1...hypothesis.count {
                let substitution = previous[column - 1] + (word == hypothesis[column - 1] ? 0 : 1)
                current[column] = min(substitution, previous[column] + 1, current[column - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[hypothesis.count]
    }
}
