import ClawTalkAudio

/// Stage-1 spotting of any trigger with PocketSphinx keyphrase search (Debian `pocketsphinx`
/// 0.8 and its en-us model): one decoder, one keyphrase per trigger, each with its own
/// threshold; pronunciations of words the dictionary lacks come from ``PronunciationResolver``.
///
/// Default thresholds depend on the phrase's syllables (architecture.md §7.4): PocketSphinx
/// compares a keyphrase's acoustic score with a garbage loop, so a longer phrase needs a smaller
/// (more lenient) threshold, and a one-syllable word such as "claude" false-fires on every
/// "claims"/"clause" even at 1e-3 — so one syllable gets the strictest default and should be
/// verified by the transcript (or spoken as a two-word phrase). See ``defaultThreshold(syllables:)``;
/// ``Options/thresholds`` overrides per trigger (`wake.thresholds`).
///
/// The decoder runs one utterance continuously and each keyphrase PocketSphinx adds to its
/// hypothesis is reported once; after ``Options/utteranceLimit`` seconds the utterance restarts
/// at the next quiet block, so its internal lists stay small. Not thread-safe (see ``WakeEngine``).
public final class PocketSphinxKeywordEngine: WakeEngine {
    /// The name in ``WakeHit/engine``.
    public static let engineName = "pocketsphinx"

    /// Tuning.
    public struct Options: Sendable {
        /// Thresholds by trigger (any spelling with the same ``TriggerText/key(_:)``), replacing
        /// ``PocketSphinxKeywordEngine/defaultThreshold(syllables:)``.
        public var thresholds: [String: Double]
        /// Acoustic model and dictionary.
        public var model: PocketSphinxDecoder.Model
        /// Restart the utterance at a quiet block after this many seconds without a hit.
        public var utteranceLimit: Double

        /// Defaults: Debian's en-us model, no overrides, 30 s utterances.
        public init(
            thresholds: [String: Double] = [:], model: PocketSphinxDecoder.Model = .debianEnglish,
            utteranceLimit: Double = 30
        ) {
            self.thresholds = thresholds
            self.model = model
            self.utteranceLimit = utteranceLimit
        }
    }

    /// One trigger as the decoder spots it.
    public struct Keyword: Sendable, Hashable {
        /// The trigger as configured.
        public var trigger: String
        /// The keyphrase given to PocketSphinx (normalized words).
        public var phrase: String
        /// Its threshold.
        public var threshold: Double
        /// Pronunciation of each word.
        public var pronunciations: [PronunciationResolver.Pronunciation]
    }

    /// The default threshold for a phrase of `syllables` syllables: 1 → 1e-5, 2 → 1e-12,
    /// 3 → 1e-20 (e.g. "computer", "openclaw"), 4 → 1e-25, 5 or more → 1e-30.
    ///
    /// One syllable: no threshold makes a lone word such as "claude" safe (it fired on "claws"
    /// and "the clause claims" from 1e-5 to 1e-1 in this project's tests, and 21 times in 46 min
    /// of read text at 1e-3 in docs/architecture.md §7), while 1e-3 already missed "hey claude"; 1e-5 is
    /// 10¹⁵ stricter than the multi-syllable default and leaves rejection to the transcript verifier.
    public static func defaultThreshold(syllables: Int) -> Double {
        switch syllables {
        case ...1: 1e-5
        case 2: 1e-12
        case 3: 1e-20
        case 4: 1e-25
        default: 1e-30
        }
    }

    /// ``engineName``.
    public var name: String { Self.engineName }
    /// The triggers, as configured.
    public private(set) var triggers: [String]
    /// The keyphrases in use, one per distinct trigger.
    public private(set) var keywords: [Keyword]
    /// The options in use.
    public let options: Options

    private let resolver: PronunciationResolver
    private var decoder: PocketSphinxDecoder
    /// Samples fed since the start (or ``reset()``): the time base of hits.
    private var position = 0
    /// State of this engine's own dither generator (see ``dithered(_:)``).
    private var ditherState = PocketSphinxKeywordEngine.ditherSeed
    /// Scratch buffer for dithered input (grows to the largest chunk seen).
    private var scratch: [Int16] = []

    private static let ditherSeed: UInt64 = 0x2545_F491_4F6C_DD1D
    /// ``position`` when the current utterance started.
    private var utteranceStart = 0
    /// Words of the utterance's keyphrase hypothesis already reported as hits.
    private var reportedWords = 0
    /// ``position`` of the last hit per keyphrase.
    private var lastHit: [String: Int] = [:]

    /// PocketSphinx may list one spoken keyphrase twice (end frames tens of milliseconds
    /// apart); a repeat within this many seconds is the same one.
    private static let repeatWindow = 1.0

    /// A spotter for `triggers` (at least one).
    public init(triggers: [String], options: Options = Options(), resolver: PronunciationResolver) throws {
        self.options = options
        self.resolver = resolver
        let keywords = try Self.keywords(for: triggers, options: options, resolver: resolver)
        decoder = try Self.decoder(for: keywords, options: options)
        self.triggers = triggers
        self.keywords = keywords
        try decoder.startUtterance()
    }

    /// The threshold `trigger` gets (override or default).
    public func threshold(for trigger: String) -> Double? {
        keywords.first { TriggerText.key($0.trigger) == TriggerText.key(trigger) }?.threshold
    }

    /// Rebuilds the keyphrase search for `triggers`; the stream's time base continues.
    public func setTriggers(_ triggers: [String]) throws {
        let keywords = try Self.keywords(for: triggers, options: options, resolver: resolver)
        let decoder = try Self.decoder(for: keywords, options: options)
        try decoder.startUtterance()
        self.decoder = decoder
        self.keywords = keywords
        self.triggers = triggers
        utteranceStart = position
        reportedWords = 0
    }

    /// Feeds samples; reports the keyphrases spotted by the end of them.
    public func process(_ samples: UnsafeBufferPointer<Int16>) throws -> [WakeHit] {
        guard !samples.isEmpty else { return [] }
        try dithered(samples) { try decoder.process($0) }
        position += samples.count
        let hits = newHits(in: decoder.hypothesis()?.text)
        let limit = Int(options.utteranceLimit * Double(PocketSphinxDecoder.format.sampleRate))
        if position - utteranceStart >= limit, EnergyGate.rms(samples) < EnergyGate.minimumSpeechRMS {
            try restartUtterance()
        }
        return hits
    }

    /// Ends the utterance and reports what its last frames completed.
    public func finish() throws -> [WakeHit] {
        try decoder.endUtterance()
        let hits = newHits(in: decoder.hypothesis()?.text)
        try restartUtterance()
        return hits
    }

    /// Restarts the utterance and the time base.
    public func reset() throws {
        try restartUtterance()
        ditherState = Self.ditherSeed
        lastHit.removeAll()
        position = 0
        utteranceStart = 0
    }

    /// Moves the time base on by `samples` (an engine created in the middle of a stream).
    func skip(_ samples: Int) {
        position += samples
        utteranceStart = position
    }

    // MARK: - Private

    /// Calls `body` with `samples` plus ±1 LSB triangular dither, so digital silence does not
    /// upset PocketSphinx's features.
    ///
    /// The engine dithers itself instead of using PocketSphinx's `-dither`, whose random numbers
    /// come from sphinxbase's process-global generator: with two decoders in one process (a
    /// threshold sweep, or a dictation verifier next to the spotter) each one's noise, and so its
    /// detections, would depend on the other's calls. This generator belongs to the engine and
    /// restarts on ``reset()``, so a file gives the same hits whatever else runs.
    private func dithered(_ samples: UnsafeBufferPointer<Int16>, _ body: (UnsafeBufferPointer<Int16>) throws -> Void)
        rethrows
    {
        if scratch.count < samples.count { scratch = [Int16](repeating: 0, count: samples.count) }
        var state = ditherState
        for index in samples.indices {
            // xorshift64: two random bits give a triangular -1, 0, 0, +1.
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let noise = Int32(state & 1) - Int32((state >> 1) & 1)
            scratch[index] = Int16(clamping: Int32(samples[index]) + noise)
        }
        ditherState = state
        try scratch.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<samples.count])) }
    }

    private func restartUtterance() throws {
        try decoder.startUtterance()
        utteranceStart = position
        reportedWords = 0
    }

    /// The hit for the part of the keyphrase hypothesis not reported yet.
    ///
    /// PocketSphinx lists every keyphrase spotted since the utterance started, in order, so the
    /// utterance keeps running after a hit (restarting it would drop a longer keyphrase still in
    /// progress, e.g. "computer" after a spurious "claude" inside it). When several keyphrases
    /// complete in the same block only the one with the most phones is kept: they overlap in
    /// time, and the shorter is then usually part of the longer ("claude" ≈ the end of
    /// "openclaw", `K L AO`).
    private func newHits(in hypothesis: String?) -> [WakeHit] {
        let all = hypothesis?.split(separator: " ").map(String.init) ?? []
        if all.count < reportedWords { reportedWords = 0 }
        guard all.count > reportedWords else { return [] }
        let words = Array(all[reportedWords...])
        reportedWords = all.count
        var found: [Keyword] = []
        var index = 0
        let byLength = keywords.sorted { $0.phrase.count > $1.phrase.count }
        while index < words.count {
            let match = byLength.first { keyword in
                let phraseWords = keyword.phrase.split(separator: " ").map(String.init)
                return index + phraseWords.count <= words.count
                    && Array(words[index..<index + phraseWords.count]) == phraseWords
            }
            guard let match else {
                index += 1
                continue
            }
            found.append(match)
            index += match.phrase.split(separator: " ").count
        }
        let phoneCount = { (keyword: Keyword) in keyword.pronunciations.reduce(0) { $0 + $1.phones.count } }
        guard let best = found.max(by: { phoneCount($0) < phoneCount($1) }) else { return [] }
        let window = Int(Self.repeatWindow * Double(PocketSphinxDecoder.format.sampleRate))
        if let last = lastHit[best.phrase], position - last < window { return [] }
        lastHit[best.phrase] = position
        let at = Double(position) / Double(PocketSphinxDecoder.format.sampleRate)
        return [WakeHit(trigger: best.trigger, engine: name, atSeconds: at, score: best.threshold)]
    }

    private static func keywords(
        for triggers: [String], options: Options, resolver: PronunciationResolver
    ) throws -> [Keyword] {
        var keywords: [Keyword] = []
        for trigger in triggers {
            let phrase = TriggerText.normalize(trigger)
            guard !phrase.isEmpty, !keywords.contains(where: { $0.phrase == phrase }) else { continue }
            let pronunciations = try resolver.pronounce(phrase: phrase)
            let syllables = ARPAbet.syllableCount(pronunciations.flatMap(\.phones))
            let key = TriggerText.key(trigger)
            let threshold =
                options.thresholds.first { TriggerText.key($0.key) == key }?.value
                ?? defaultThreshold(syllables: syllables)
            guard threshold > 0, threshold <= 1 else {
                throw WakeError.invalidThreshold(trigger: trigger, value: threshold)
            }
            keywords.append(
                Keyword(trigger: trigger, phrase: phrase, threshold: threshold, pronunciations: pronunciations))
        }
        guard !keywords.isEmpty else { throw WakeError.unsupportedTrigger(trigger: "", engine: engineName) }
        return keywords
    }

    private static func decoder(for keywords: [Keyword], options: Options) throws -> PocketSphinxDecoder {
        var added: [String: String] = [:]
        for pronunciation in keywords.flatMap(\.pronunciations) where pronunciation.source != .dictionary {
            added[pronunciation.word] = pronunciation.phones.joined(separator: " ")
        }
        let phrases = keywords.map { PocketSphinxDecoder.Keyphrase($0.phrase, threshold: $0.threshold) }
        return try PocketSphinxDecoder(
            mode: .keyphrases(phrases), model: options.model, pronunciations: added, dither: false)
    }
}
