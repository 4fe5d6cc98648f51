internal import CPocketSphinx
internal import CPocketSphinxShim
public import ClawTalkAudio
import ClawTalkSupport
import Foundation
import Synchronization

/// A PocketSphinx decoder (Debian `libpocketsphinx` 0.8+5prealpha, BSD-style; en-us model from
/// `pocketsphinx-en-us`) for dictation or keyphrase spotting on 16 kHz mono PCM.
///
/// Library rules this type enforces:
/// - A `ps_decoder_t` is not thread-safe; every call runs under one internal `Mutex`, so the
///   decoder is `Sendable`. Decoding blocks (RTF ≈ 0.35 with the language model): call it from a
///   serial lane, not the cooperative pool.
/// - Creation with the 27 MB language model takes ≈ 1.5 s; keep one decoder per use.
/// - PocketSphinx logs through process-global sphinxbase state: a decoder made without a
///   `logFile` silences that log for the whole process.
/// - In keyphrase mode the hypothesis lists the phrases spotted since ``startUtterance()``;
///   restart the utterance after acting on one so it is not reported again.
/// - Only 16 kHz mono s16 input is accepted (the acoustic model's rate).
/// - Cepstral mean normalisation adapts across utterances, so a result depends a little on
///   what the decoder heard before; dithering uses a fixed seed, so a fresh decoder fed the
///   same audio gives the same result.
public final class PocketSphinxDecoder: Sendable {
    /// What the decoder searches for.
    public enum Mode: Sendable, Hashable {
        /// Free dictation with the model's n-gram language model.
        case languageModel
        /// Spotting of the given phrases, each with its own detection threshold.
        case keyphrases([Keyphrase])
    }

    /// A phrase to spot and its threshold (smaller, e.g. `1e-30`, fires more readily than `1e-5`).
    public struct Keyphrase: Sendable, Hashable {
        /// Words from the dictionary (or added pronunciations), lower case, space separated.
        public var phrase: String
        /// Detection threshold, a positive probability-like value (typical 1e-40...1e-5).
        public var threshold: Double

        /// Creates a keyphrase.
        public init(_ phrase: String, threshold: Double) {
            self.phrase = phrase
            self.threshold = threshold
        }
    }

    /// File locations of an acoustic model, dictionary and language model.
    public struct Model: Sendable, Hashable {
        /// Acoustic model directory (`-hmm`).
        public var acousticModel: String
        /// Pronunciation dictionary (`-dict`).
        public var dictionary: String
        /// Binary n-gram language model (`-lm`), used in ``Mode/languageModel``.
        public var languageModel: String

        /// Creates a model description from explicit paths.
        public init(acousticModel: String, dictionary: String, languageModel: String) {
            self.acousticModel = acousticModel
            self.dictionary = dictionary
            self.languageModel = languageModel
        }

        /// The en-us model of Debian's `pocketsphinx-en-us` under `/usr/share/pocketsphinx/model`.
        public static let debianEnglish = Model(
            acousticModel: "/usr/share/pocketsphinx/model/en-us/en-us",
            dictionary: "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict",
            languageModel: "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin")
    }

    /// The only input format: 16 kHz mono.
    public static let format = AudioFormat.speech

    /// Name of the keyphrase search registered with the decoder.
    private static let keyphraseSearch = "clawtalk_kws"

    /// The decoder handle. `@unchecked Sendable`: it is only touched inside `state.locked`,
    /// which is the one lane that owns it (region checking cannot see through the C calls).
    private struct State: @unchecked Sendable {
        var decoder: OpaquePointer
        var inUtterance = false
    }

    private let state: Mutex<State>

    /// The search mode this decoder was made with.
    public let mode: Mode

    /// Loads the model and prepares `mode`. `pronunciations` adds words to the dictionary first
    /// (word → CMU phones, e.g. `"openclaw": "OW P AH N K L AO"`); `dither` adds tiny noise so
    /// digital silence does not upset the feature extraction; `logFile` keeps PocketSphinx's
    /// log (otherwise it is silenced).
    public init(
        mode: Mode, model: Model = .debianEnglish, pronunciations: [String: String] = [:],
        dither: Bool = true, logFile: String? = nil
    ) throws {
        var required = [model.acousticModel, model.dictionary]
        if mode == .languageModel { required.append(model.languageModel) }
        for path in required where !FileManager.default.fileExists(atPath: path) {
            throw SpeechError.fileNotFound(path: path)
        }
        if case .keyphrases(let phrases) = mode {
            if phrases.isEmpty {
                throw SpeechError.decoder(operation: "create", message: "no keyphrases given")
            }
            for phrase in phrases where !(phrase.threshold > 0) || phrase.phrase.isEmpty {
                throw SpeechError.decoder(
                    operation: "create", message: "invalid keyphrase '\(phrase.phrase)' /\(phrase.threshold)/")
            }
        }
        let languageModel = mode == .languageModel ? model.languageModel : nil
        guard
            let decoder = cps_decoder_new(
                model.acousticModel, model.dictionary, languageModel, nil, nil, 0, dither ? 1 : 0, logFile)
        else {
            throw SpeechError.decoder(
                operation: "create", message: "ps_init rejected the model in \(model.acousticModel)")
        }
        do {
            try Self.configure(decoder, mode: mode, pronunciations: pronunciations)
        } catch {
            cps_decoder_free(decoder)
            throw error
        }
        self.mode = mode
        state = Mutex(State(decoder: decoder))
    }

    deinit {
        state.locked { cps_decoder_free($0.decoder) }
    }

    /// Begins an utterance (ends a running one first).
    public func startUtterance() throws {
        try state.locked { state in
            if state.inUtterance {
                _ = ps_end_utt(state.decoder)
                state.inUtterance = false
            }
            try Self.check(ps_start_utt(state.decoder), "start utterance")
            state.inUtterance = true
        }
    }

    /// Feeds samples of the current utterance (16 kHz mono).
    public func process(_ samples: UnsafeBufferPointer<Int16>) throws {
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        try state.locked { state in
            guard state.inUtterance else {
                throw SpeechError.decoder(operation: "process", message: "no utterance started")
            }
            let frames = ps_process_raw(state.decoder, base, samples.count, 0, 0)
            try Self.check(frames, "process audio")
        }
    }

    /// The best hypothesis so far (dictation) or the phrases spotted so far (keyphrases), with
    /// PocketSphinx's path score; nil when there is none.
    public func hypothesis() -> (text: String, score: Int)? {
        state.locked { state in
            var score: Int32 = 0
            guard let text = ps_get_hyp(state.decoder, &score) else { return nil }
            // Keyphrase hypotheses come as "computer  computer ": normalise the spacing.
            let string = String(cString: text).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return string.isEmpty ? nil : (string, Int(score))
        }
    }

    /// Ends the utterance, finishing the search; ``hypothesis()`` then gives the final result.
    public func endUtterance() throws {
        try state.locked { state in
            guard state.inUtterance else { return }
            state.inUtterance = false
            try Self.check(ps_end_utt(state.decoder), "end utterance")
        }
    }

    /// Decodes a whole buffer as one utterance and returns the final hypothesis ("" for none).
    /// Throws ``SpeechError/unsupportedFormat(_:expected:)`` unless it is 16 kHz mono.
    public func transcribe(_ buffer: PCMBuffer) throws -> String {
        guard buffer.format == Self.format else {
            throw SpeechError.unsupportedFormat(buffer.format, expected: Self.format)
        }
        try startUtterance()
        try buffer.samples.withUnsafeBufferPointer { try process($0) }
        try endUtterance()
        return hypothesis()?.text ?? ""
    }

    /// The dictionary pronunciation of `word` (CMU phones), or nil if it is unknown.
    public func pronunciation(of word: String) -> String? {
        state.locked { Self.lookup(word, in: $0.decoder) }
    }

    // MARK: - Private

    /// Adds pronunciations and, for keyphrases, registers and activates the keyphrase search.
    private static func configure(
        _ decoder: OpaquePointer, mode: Mode, pronunciations: [String: String]
    ) throws {
        let hasSearch = mode == .languageModel
        for (word, phones) in pronunciations.sorted(by: { $0.key < $1.key }) {
            // Updating the search needs one; the keyphrase search is built after the words.
            let rc = ps_add_word(decoder, word, phones, hasSearch ? 1 : 0)
            if rc < 0 {
                throw SpeechError.decoder(operation: "add word", message: "'\(word)' with phones '\(phones)'")
            }
        }
        guard case .keyphrases(let phrases) = mode else { return }
        for phrase in phrases {
            for word in phrase.phrase.split(separator: " ") where lookup(String(word), in: decoder) == nil {
                throw SpeechError.unknownWord(String(word))
            }
        }
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("clawtalk-kws-\(UUID().uuidString).txt")
        let lines = phrases.map { "\($0.phrase) /\($0.threshold)/\n" }.joined()
        do {
            try lines.write(to: file, atomically: true, encoding: .utf8)
        } catch {
            throw SpeechError.decoder(operation: "write keyphrase file", message: "\(error)")
        }
        // ps_set_kws reads the file immediately.
        defer { try? FileManager.default.removeItem(at: file) }
        try check(ps_set_kws(decoder, keyphraseSearch, file.path), "set keyphrases")
        try check(ps_set_search(decoder, keyphraseSearch), "activate keyphrase search")
    }

    private static func lookup(_ word: String, in decoder: OpaquePointer) -> String? {
        guard let phones = ps_lookup_word(decoder, word) else { return nil }
        defer { free(phones) }
        return String(cString: phones)
    }

    /// PocketSphinx returns negative codes and writes the reason to its log.
    private static func check(_ rc: Int32, _ operation: String) throws {
        guard rc < 0 else { return }
        throw SpeechError.decoder(operation: operation, message: "error \(rc) (see the PocketSphinx log)")
    }
}
