import ClawTalkSpeech
import Testing

/// Phone-level edit distance.
func phoneDistance(_ a: [String], _ b: [String]) -> Int {
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + [Int](repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}

@Suite struct PronunciationTests {
    static let openclaw = ["OW", "P", "AH", "N", "K", "L", "AO"]

    @Test func debianDictionaryLoads() throws {
        let dictionary = try PronunciationDictionary.shared()
        #expect(dictionary.count > 100_000)
        #expect(dictionary.phones(for: "computer") == ["K", "AH", "M", "P", "Y", "UW", "T", "ER"])
        #expect(dictionary.phones(for: "claude") == ["K", "L", "AO", "D"])
        #expect(dictionary.phones(for: "openclaw") == nil)
        #expect(try PronunciationDictionary.shared() === dictionary)
    }

    @Test func missingDictionaryIsAnError() {
        #expect(throws: SpeechError.fileNotFound(path: "/nonexistent/x.dict")) {
            try PronunciationDictionary(contentsOf: "/nonexistent/x.dict")
        }
    }

    @Test(arguments: [
        ("openclaw", "open claw"),
        ("clawtalk", "claw talk"),
        ("OpenClaw", "open claw"),
    ])
    func compoundsSplitIntoDictionaryWords(word: String, parts: String) throws {
        let resolver = PronunciationResolver(dictionary: try .shared(), phonemizer: nil)
        let pronunciation = try resolver.pronounce(word)
        let expectedParts = parts.split(separator: " ").map(String.init)
        #expect(pronunciation.source == .compound(expectedParts))
        let dictionary = try PronunciationDictionary.shared()
        #expect(pronunciation.phones == expectedParts.flatMap { dictionary.phones(for: $0)! })
    }

    @Test func openclawGetsTheHandWrittenPronunciation() throws {
        let resolver = PronunciationResolver(dictionary: try .shared())
        #expect(try resolver.pronounce("openclaw").phones == Self.openclaw)
        #expect(try resolver.pronounce("computer").source == .dictionary)
    }

    @Test func espeakDerivesOpenclawClosely() throws {
        let phones = try EspeakPhonemizer().arpabet("openclaw")
        // espeak-ng assimilates the n to NG before K; everything else matches.
        #expect(phoneDistance(phones, Self.openclaw) <= 1, "\(phones)")
    }

    @Test func unknownNonCompoundWordsUseEspeak() throws {
        let resolver = PronunciationResolver(dictionary: try .shared())
        let pronunciation = try resolver.pronounce("zorblax")
        #expect(pronunciation.source == .espeak)
        #expect(pronunciation.phones.first == "Z")
        #expect(ARPAbet.syllableCount(pronunciation.phones) == 2)
        let withoutEspeak = PronunciationResolver(dictionary: try .shared(), phonemizer: nil)
        #expect(throws: WakeError.noPronunciation(word: "zorblax")) { try withoutEspeak.pronounce("zorblax") }
    }

    @Test func missingEspeakProgramIsAnError() {
        #expect(throws: WakeError.self) { try EspeakPhonemizer(executable: "/nonexistent/espeak-ng").ipa("hi") }
    }

    /// Words that are in the dictionary: espeak-derived phones stay close to the dictionary's.
    @Test func espeakAgreesWithTheDictionaryOnCommonWords() throws {
        let words = [
            "computer", "jarvis", "alexa", "mirror", "window", "kitchen", "weather", "music", "assistant", "garden",
            "television", "coffee", "morning", "lights", "timer", "yellow", "purple", "monday", "november", "station",
            "butter", "pepper", "thunder", "rocket", "planet", "dragon", "silver", "hammer", "camera", "banana",
        ]
        let dictionary = try PronunciationDictionary.shared()
        let phonemizer = EspeakPhonemizer()
        var close = 0
        for word in words {
            let derived = try phonemizer.arpabet(word)
            if phoneDistance(derived, dictionary.phones(for: word)!) <= 1 { close += 1 }
        }
        #expect(close >= 24, "\(close) of \(words.count) within one phone")
    }
}
