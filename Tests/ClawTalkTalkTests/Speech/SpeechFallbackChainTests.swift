import ClawTalkSupport
import Testing

@testable import ClawTalkTalk

/// The fallback chain of talk.md §7.5, decision by decision.
@Suite("Speech fallback chain (talk.md §7.5)")
struct SpeechFallbackChainTests {
    typealias Chain = SpeechFallbackChain

    static let refused = Chain.Outcome.failed(reason: "quota", fallbackEligible: false)
    static let unavailable = Chain.Outcome.failed(reason: "timeout", fallbackEligible: true)

    @Test(arguments: TTSFallback.allCases)
    func withoutTheGatewayOnlyEspeakSpeaks(fallback: TTSFallback) {
        for purpose in SpeechPurpose.allCases {
            let (_, first) = Chain.start(
                purpose: purpose, gatewayConnected: false, ttsSpeakAvailable: true, fallback: fallback)
            #expect(first == Chain.Decision(next: .local))
        }
    }

    @Test func aReplyGoesTalkSpeakThenTTSSpeakThenEspeak() {
        let (chain, first) = Chain.start(
            purpose: .reply, gatewayConnected: true, ttsSpeakAvailable: true, fallback: .eligible)
        #expect(first == Chain.Decision(next: .talkSpeak))
        #expect(chain.decide(after: .talkSpeak, Self.unavailable) == Chain.Decision(next: .ttsSpeak))
        #expect(chain.decide(after: .ttsSpeak, Self.unavailable) == Chain.Decision(next: .local))
        #expect(chain.decide(after: .talkSpeak, .spoke) == Chain.Decision(next: nil))
        #expect(chain.decide(after: .ttsSpeak, .spoke) == Chain.Decision(next: nil))
    }

    @Test func withoutTTSSpeakAnEligibleFailureGoesStraightToEspeak() {
        let (chain, _) = Chain.start(
            purpose: .reply, gatewayConnected: true, ttsSpeakAvailable: false, fallback: .eligible)
        #expect(chain.decide(after: .talkSpeak, Self.unavailable) == Chain.Decision(next: .local))
    }

    /// talk.md §7.5.3: a refusal that the gateway means plays the error earcon and skips `tts.speak`;
    /// espeak-ng speaks only with `tts.fallback always`.
    @Test(arguments: TTSFallback.allCases)
    func aRefusalPlaysTheEarconAndFallsBackOnlyWhenAlways(fallback: TTSFallback) {
        let (chain, _) = Chain.start(
            purpose: .reply, gatewayConnected: true, ttsSpeakAvailable: true, fallback: fallback)
        let decision = chain.decide(after: .talkSpeak, Self.refused)
        #expect(decision.earcon)
        #expect(decision.next == (fallback == .always ? .local : .fail("quota")))
    }

    @Test func withFallbackNeverAFailedGatewaySpeaksNothingAndPlaysTheEarcon() {
        let (chain, _) = Chain.start(
            purpose: .reply, gatewayConnected: true, ttsSpeakAvailable: true, fallback: .never)
        let decision = chain.decide(after: .ttsSpeak, Self.unavailable)
        #expect(decision.earcon)
        guard case .fail(let reason)? = decision.next else {
            Issue.record("expected a failure, got \(String(describing: decision.next))")
            return
        }
        #expect(reason.contains("tts.fallback never"))
    }

    /// Reading a message aloud is not a reply: it does not use `talk.speak`.
    @Test func otherSpeechStartsAtTTSSpeak() {
        let start = { (tts: Bool, fallback: TTSFallback) in
            Chain.start(purpose: .readAloud, gatewayConnected: true, ttsSpeakAvailable: tts, fallback: fallback).first
        }
        #expect(start(true, .eligible) == Chain.Decision(next: .ttsSpeak))
        #expect(start(false, .eligible) == Chain.Decision(next: .local))
        let never = start(false, .never)
        #expect(never.earcon)
        #expect(never.next != .local && never.next != nil)
    }
}
