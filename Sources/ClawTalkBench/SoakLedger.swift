/// The soak's bookkeeping, pure: what was said into the microphone, what reached the gateway,
/// and the verdict for each utterance (issue 16: delivered **exactly once**), plus the resource
/// trend (growth per hour after warm-up).
///
/// Each utterance names one keyword (a noun), and consecutive utterances use different ones,
/// so a delivery that arrives late (after a reconnect, from the outbox) is still counted for the
/// utterance that said it: an utterance owns every gateway message that contains its keyword
/// from the moment it was said until the same keyword is said again.
struct SoakLedger: Sendable, Equatable {
    /// How an utterance reached the node.
    enum Kind: String, Sendable, CaseIterable {
        /// "computer, …" into the microphone.
        case wake
        /// A `talk.ptt.once` invoke from the gateway, then the question.
        case pttOnce = "ptt.once"
        /// A question in continuous Talk mode.
        case talk
    }

    /// One thing said.
    struct Utterance: Sendable, Equatable {
        var kind: Kind
        var keyword: String
        /// Index into the gateway's message list when it was said.
        var firstMessage: Int
        /// Whether a spoken reply was expected and heard (nil: none expected).
        var replyHeard: Bool?
    }

    /// How each utterance ended.
    struct Verdict: Sendable, Equatable {
        var utterance: Utterance
        /// Messages that carried it.
        var deliveries: Int
        /// Messages between it and the next utterance that carry no keyword at all: it was
        /// delivered, but speech-to-text did not hear the keyword ("my sickles").
        var misheard: Int
    }

    /// Everything said, in order.
    private(set) var utterances: [Utterance] = []

    /// Records an utterance said when the gateway had `messages` messages; returns its index.
    mutating func said(_ kind: Kind, keyword: String, messages: Int) -> Int {
        utterances.append(Utterance(kind: kind, keyword: keyword, firstMessage: messages))
        return utterances.count - 1
    }

    /// Records whether utterance `index`'s reply was heard.
    mutating func reply(_ index: Int, heard: Bool) {
        utterances[index].replyHeard = heard
    }

    /// Whether `message` carries `keyword` (a word that starts with it, any case: "dragons").
    static func carries(_ message: String, _ keyword: String) -> Bool {
        message.lowercased().split { !$0.isLetter }.contains { $0.hasPrefix(keyword.lowercased()) }
    }

    /// The verdicts against the gateway's messages (commands and transcripts, in order).
    func verdicts(messages: [String]) -> [Verdict] {
        let keywords = Set(utterances.map(\.keyword))
        return utterances.enumerated().map { index, utterance in
            let next =
                utterances[(index + 1)...].first { $0.keyword == utterance.keyword }?.firstMessage ?? messages.count
            let window = messages[min(utterance.firstMessage, messages.count)..<min(next, messages.count)]
            let following = utterances.count > index + 1 ? utterances[index + 1].firstMessage : messages.count
            let own = messages[min(utterance.firstMessage, messages.count)..<min(following, messages.count)]
            return Verdict(
                utterance: utterance, deliveries: window.filter { Self.carries($0, utterance.keyword) }.count,
                misheard: own.filter { message in !keywords.contains { Self.carries(message, $0) } }.count)
        }
    }

    /// Least-squares slope of `samples` (seconds, value) in value per hour, after dropping those
    /// before `warmUp` seconds; nil with fewer than two left.
    static func growthPerHour(_ samples: [(seconds: Double, value: Double)], warmUp: Double) -> Double? {
        let kept = samples.filter { $0.seconds >= warmUp }
        guard kept.count >= 2 else { return nil }
        let count = Double(kept.count)
        let meanTime = kept.map(\.seconds).reduce(0, +) / count
        let meanValue = kept.map(\.value).reduce(0, +) / count
        let spread = kept.map { ($0.seconds - meanTime) * ($0.seconds - meanTime) }.reduce(0, +)
        guard spread > 0 else { return nil }
        let covariance = kept.map { ($0.seconds - meanTime) * ($0.value - meanValue) }.reduce(0, +)
        return covariance / spread * 3600
    }
}
