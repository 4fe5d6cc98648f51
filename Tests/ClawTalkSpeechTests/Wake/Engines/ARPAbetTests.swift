import ClawTalkSpeech
import Testing

@Suite struct ARPAbetTests {
    @Test(arguments: [
        // espeak-ng 1.51 en-us output (`--ipa --sep=_`) → expected ARPAbet.
        ("oʊ_p_ə_ŋ_k_l_ˈɔː", "OW P AH NG K L AO"),
        ("k_ə_m_p_j_ˈuː_ɾ_ɚ", "K AH M P Y UW T ER"),
        ("k_l_ˈɔː_d", "K L AO D"),
        ("dʒ_ˈɑːɹ_v_ɪ_s", "JH AA R V IH S"),
        ("ɐ_l_ˈɛ_k_s_ə", "AH L EH K S AH"),
        ("h_ˈaɪɚ f_ˈaɪɚ", "HH AY ER F AY ER"),
        ("b_ˈʌ_ʔ_n̩", "B AH T AH N"),
        ("l_ˈɪ_ɾ_əl", "L IH T AH L"),
        ("m_j_ʊɹ_ɹ_ˈɪ_l_oʊ", "M Y UH R IH L OW"),
        ("θ_ˈɪ_ŋ_k", "TH IH NG K"),
        ("ð_ˈə", "DH AH"),
        ("tʃ_ˈiː_p", "CH IY P"),
        ("ˌoʊ_k_ˈeɪ", "OW K EY"),
        ("w_ˈɜː_ɹ_d", "W ER D"),
    ])
    func convertsEspeakIPA(ipa: String, expected: String) {
        let (phones, unknown) = ARPAbet.fromIPA(ipa)
        #expect(phones.joined(separator: " ") == expected)
        #expect(unknown.isEmpty)
        #expect(phones.allSatisfy { ARPAbet.phones.contains($0) })
    }

    @Test func unknownPhonemesAreReportedNotGuessed() {
        let (phones, unknown) = ARPAbet.fromIPA("k_ʏ_t")
        #expect(phones == ["K", "T"])
        #expect(unknown == ["ʏ"])
    }

    @Test func everyTableEntryIsValidARPAbet() {
        for (ipa, phones) in ARPAbet.ipaTable {
            #expect(!phones.isEmpty && phones.allSatisfy { ARPAbet.phones.contains($0) }, "\(ipa) → \(phones)")
        }
    }

    @Test(arguments: [("K AH M P Y UW T ER", 3), ("K L AO D", 1), ("OW P AH N K L AO", 3), ("S", 0)])
    func countsSyllables(phones: String, syllables: Int) {
        #expect(ARPAbet.syllableCount(phones.split(separator: " ").map(String.init)) == syllables)
    }

    @Test func stressDigitsAreRemoved() {
        #expect(
            ARPAbet.strippingStress(["K", "AH0", "M", "P", "Y", "UW1", "T", "ER0"]) == [
                "K", "AH", "M", "P", "Y", "UW", "T", "ER",
            ])
    }
}
