import ClawTalkSupport

/// The fallback chain of talk.md §7.5 for one synthesis request, as a state machine: which
/// engine goes next after what the last one did. `talk.speak` (replies, with the operator
/// connection up) → `tts.speak` (if the gateway offers it) → espeak-ng, as `tts.fallback` allows.
/// ``SpeechOutput`` makes the requests and logs; this decides.
struct SpeechFallbackChain: Sendable, Equatable {
    /// What to do next.
    enum Step: Sendable, Equatable {
        /// Ask the gateway for `talk.speak`.
        case talkSpeak
        /// Ask the gateway for `tts.speak`.
        case ttsSpeak
        /// Speak with espeak-ng.
        case local
        /// Give up on this request with `reason` (nothing is spoken for it).
        case fail(String)
    }

    /// What a gateway step achieved.
    enum Outcome: Sendable, Equatable {
        /// Audio came back: the request is done.
        case spoke
        /// The request failed; `fallbackEligible` as talk.md §7.5 classifies the error.
        case failed(reason: String, fallbackEligible: Bool)
    }

    /// A step's result: the next step (nil: done) and whether the error earcon plays first (a
    /// gateway failure that no gateway step makes up for, talk.md §7.5.3).
    struct Decision: Sendable, Equatable {
        var next: Step?
        var earcon = false
    }

    let fallback: TTSFallback
    let ttsSpeakAvailable: Bool

    /// The first step of a request. Without the operator connection there is only espeak-ng;
    /// `tts.speak` is tried only where the gateway offers it (`ttsSpeakAvailable`).
    static func start(purpose: SpeechPurpose, gatewayConnected: Bool, ttsSpeakAvailable: Bool, fallback: TTSFallback)
        -> (chain: SpeechFallbackChain, first: Decision)
    {
        let chain = SpeechFallbackChain(fallback: fallback, ttsSpeakAvailable: ttsSpeakAvailable)
        guard gatewayConnected else { return (chain, Decision(next: .local)) }
        if purpose == .reply { return (chain, Decision(next: .talkSpeak)) }
        return (chain, chain.next(chain.afterTalkSpeak))
    }

    /// What follows `step`, which ended with `outcome`.
    func decide(after step: Step, _ outcome: Outcome) -> Decision {
        guard case .failed(let reason, let eligible) = outcome else { return Decision(next: nil) }
        switch step {
        case .talkSpeak where !eligible:
            // A refusal the gateway means (talk.md §7.5.3): no tts.speak, espeak-ng only if always.
            return Decision(next: fallback == .always ? .local : .fail(reason), earcon: true)
        case .talkSpeak:
            return next(afterTalkSpeak)
        case .ttsSpeak:
            return next(afterGateway)
        case .local, .fail:
            return Decision(next: nil)
        }
    }

    /// The step after `talk.speak` failed in a way that allows falling back.
    private var afterTalkSpeak: Step {
        ttsSpeakAvailable ? .ttsSpeak : afterGateway
    }

    /// The step once the gateway's speech has failed.
    private var afterGateway: Step {
        fallback == .never ? .fail("gateway speech failed; local fallback is off (tts.fallback never)") : .local
    }

    private func next(_ step: Step) -> Decision {
        if case .fail = step { return Decision(next: step, earcon: true) }
        return Decision(next: step)
    }
}
