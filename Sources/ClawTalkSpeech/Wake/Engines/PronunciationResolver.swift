/// Pronunciations (ARPAbet) for trigger words, so PocketSphinx can spot any trigger: first the
/// CMU dictionary, then a split of the word into dictionary words (`openclaw` → `open` + `claw`
/// → `OW P AH N K L AO`), then espeak-ng's letter-to-sound rules mapped to ARPAbet.
///
/// The split comes before espeak-ng because names made of words are common for triggers and the
/// dictionary's own entries are better than derived ones (espeak-ng assimilates `openclaw` to
/// `OW P AH NG K L AO`). Parts must be at least ``minimumPartLength`` letters and at most
/// ``maximumParts`` in number, so short dictionary oddities do not produce nonsense splits;
/// the split with the fewest parts wins, then the one with the longer first part.
public struct PronunciationResolver: Sendable {
    /// Where a pronunciation came from.
    public enum Source: Sendable, Hashable {
        /// The word is in the dictionary.
        case dictionary
        /// Joined from the dictionary entries of these parts.
        case compound([String])
        /// Derived from espeak-ng's phonemes.
        case espeak
    }

    /// A word's phones and their source.
    public struct Pronunciation: Sendable, Hashable {
        /// The word (normalized, lower case).
        public var word: String
        /// ARPAbet phones without stress.
        public var phones: [String]
        /// Where they came from.
        public var source: Source
    }

    /// The dictionary.
    public let dictionary: PronunciationDictionary
    /// Letter-to-sound fallback; nil disables it (unknown words then throw).
    public var phonemizer: EspeakPhonemizer?
    /// Shortest part of a compound split.
    public var minimumPartLength = 3
    /// Most parts of a compound split.
    public var maximumParts = 3

    /// A resolver over `dictionary` with an optional espeak-ng fallback.
    public init(dictionary: PronunciationDictionary, phonemizer: EspeakPhonemizer? = EspeakPhonemizer()) {
        self.dictionary = dictionary
        self.phonemizer = phonemizer
    }

    /// The pronunciation of one word (normalized with ``TriggerText`` first).
    public func pronounce(_ word: String) throws -> Pronunciation {
        let word = TriggerText.key(word)
        if let phones = dictionary.phones(for: word) {
            return Pronunciation(word: word, phones: phones, source: .dictionary)
        }
        if let parts = split(word) {
            let phones = parts.flatMap { dictionary.phones(for: $0) ?? [] }
            return Pronunciation(word: word, phones: phones, source: .compound(parts))
        }
        guard let phonemizer else { throw WakeError.noPronunciation(word: word) }
        return Pronunciation(word: word, phones: try phonemizer.arpabet(word), source: .espeak)
    }

    /// Pronunciations of every word of `phrase`.
    public func pronounce(phrase: String) throws -> [Pronunciation] {
        try TriggerText.words(phrase).map(pronounce)
    }

    /// The best split of `word` into dictionary words, or nil.
    public func split(_ word: String) -> [String]? {
        let letters = Array(word)
        guard letters.count >= 2 * minimumPartLength else { return nil }
        // best[i]: the best split of letters[i...], by (fewest parts, longest first part).
        var best = [[String]?](repeating: nil, count: letters.count + 1)
        best[letters.count] = []
        for start in stride(from: letters.count - minimumPartLength, through: 0, by: -1) {
            var choice: [String]?
            for end in stride(from: letters.count, through: start + minimumPartLength, by: -1) {
                guard let rest = best[end], rest.count < maximumParts else { continue }
                let part = String(letters[start..<end])
                guard dictionary.contains(part) else { continue }
                let candidate = [part] + rest
                if choice == nil || candidate.count < choice!.count { choice = candidate }
            }
            best[start] = choice
        }
        guard let result = best[0], result.count >= 2 else { return nil }
        return result
    }
}
