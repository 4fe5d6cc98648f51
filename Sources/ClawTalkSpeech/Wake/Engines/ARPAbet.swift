/// CMU ARPAbet phones (the PocketSphinx en-us dictionary's alphabet, stress digits removed) and
/// the conversion from espeak-ng's IPA output for words the dictionary lacks.
///
/// The table is this project's own: each IPA phoneme espeak-ng 1.51 emits for `en-us` (with
/// `--ipa --sep=_`, stress marks stripped) maps to one or more ARPAbet phones. Where General
/// American has no separate phone the closest CMU one is used: the flap `ɾ` and glottal stop `ʔ`
/// become `T`, espeak's reduced vowels `ɐ`/`ə` become `AH` and `ᵻ` becomes `IH`, r-coloured
/// vowels split into vowel + `R` (`ɑːɹ` → `AA R`), syllabic consonants become `AH` + consonant,
/// and `ER R` / `R R` collapse to one. Over 1 500 random CMUdict words this reproduces the
/// dictionary exactly for about 60 % and within one phone for about 85 % (the rest are mostly
/// foreign names), which is enough for keyphrase spotting of a word the dictionary lacks.
public enum ARPAbet {
    /// The 39 ARPAbet phones of the CMU dictionary.
    public static let phones: Set<String> = [
        "AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH", "IH", "IY", "JH",
        "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH",
    ]

    /// The vowel phones (one per syllable).
    public static let vowels: Set<String> = [
        "AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW",
    ]

    /// IPA phoneme (espeak-ng spelling, no stress mark) → ARPAbet phones.
    public static let ipaTable: [String: [String]] = {
        let table: [String: String] = [
            // Vowels and diphthongs.
            "i": "IY", "iː": "IY", "ɪ": "IH", "ᵻ": "IH", "eɪ": "EY", "e": "EH", "ɛ": "EH", "æ": "AE", "a": "AE",
            "ɐ": "AH", "ʌ": "AH", "ə": "AH", "ɚ": "ER", "ɜː": "ER", "ɜ": "ER", "ɑː": "AA", "ɑ": "AA", "ɒ": "AA",
            "ɔː": "AO", "ɔ": "AO", "oʊ": "OW", "o": "OW", "oː": "OW", "ʊ": "UH", "uː": "UW", "u": "UW",
            "aɪ": "AY", "aʊ": "AW", "ɔɪ": "OY",
            // R-coloured vowels and vowel sequences espeak-ng writes as one phoneme.
            "ɑːɹ": "AA R", "ɔːɹ": "AO R", "ɔɹ": "AO R", "oːɹ": "AO R", "oɹ": "AO R", "ɪɹ": "IH R", "iɹ": "IH R",
            "ɛɹ": "EH R", "eɹ": "EH R", "ʊɹ": "UH R", "uɹ": "UH R", "aɪɚ": "AY ER", "aɪə": "AY ER",
            "aʊɚ": "AW ER", "aʊə": "AW ER", "iə": "IY AH", "eə": "EH R", "ʊə": "UH R",
            // Syllabic consonants.
            "əl": "AH L", "n̩": "AH N", "l̩": "AH L", "m̩": "AH M",
            // Consonants.
            "p": "P", "b": "B", "t": "T", "d": "D", "k": "K", "ɡ": "G", "g": "G", "f": "F", "v": "V", "θ": "TH",
            "ð": "DH", "s": "S", "z": "Z", "ʃ": "SH", "ʒ": "ZH", "h": "HH", "tʃ": "CH", "dʒ": "JH", "m": "M",
            "n": "N", "ŋ": "NG", "l": "L", "ɹ": "R", "r": "R", "j": "Y", "w": "W", "ʍ": "W", "ɾ": "T", "ʔ": "T",
            "x": "K", "ɬ": "L",
        ]
        return table.mapValues { $0.split(separator: " ").map(String.init) }
    }()

    /// Converts espeak-ng IPA with phonemes separated by `_` and words by spaces (the output of
    /// `espeak-ng -q --ipa --sep=_`) to ARPAbet; phonemes missing from ``ipaTable`` are
    /// returned in `unknown` and left out of `phones`.
    public static func fromIPA(_ ipa: String) -> (phones: [String], unknown: [String]) {
        var phones: [String] = []
        var unknown: [String] = []
        let tokens = ipa.split { $0 == "_" || $0.isWhitespace }
        for token in tokens {
            let phoneme = token.filter { $0 != "ˈ" && $0 != "ˌ" && $0 != "‿" }
            guard !phoneme.isEmpty else { continue }
            guard let mapped = ipaTable[phoneme] ?? ipaTable[phoneme.filter { $0 != "ː" }] else {
                unknown.append(phoneme)
                continue
            }
            for phone in mapped {
                // `ɜːɹ` and `ʊɹ_ɹ` would otherwise give a doubled R.
                if phone == "R", let last = phones.last, last == "ER" || last == "R" { continue }
                phones.append(phone)
            }
        }
        return (phones, unknown)
    }

    /// Syllables in a phone sequence (its vowels).
    public static func syllableCount(_ phones: [String]) -> Int {
        phones.filter { vowels.contains($0) }.count
    }

    /// Phones of a dictionary entry with stress digits removed (`AH0` → `AH`).
    public static func strippingStress(_ phones: [String]) -> [String] {
        phones.map { $0.filter { !$0.isNumber } }
    }
}
