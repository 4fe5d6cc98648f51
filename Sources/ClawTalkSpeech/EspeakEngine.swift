internal import CEspeakNG
public import ClawTalkAudio
import ClawTalkSupport
import Synchronization

/// The process's espeak-ng text-to-speech engine (`libespeak-ng`, GPL-3.0-or-later).
///
/// Library rules this type enforces:
/// - espeak-ng keeps all its state (voice, rate, output callback) in process globals, so **at
///   most one `EspeakEngine` may exist per process**: a second `init` throws
///   ``SpeechError/engineInUse`` until the first one is released (its `deinit` terminates
///   espeak-ng and frees the slot).
/// - Every call into espeak-ng runs under one internal `Mutex`, so the engine is `Sendable`;
///   synthesis still blocks the caller (≈ 2 ms per second of speech), so async code should call
///   it from a serial lane rather than the cooperative pool.
/// - Synthesis runs in espeak-ng's synchronous mode: the samples arrive through a
///   `@convention(c)` callback on the calling thread, which finds its collector through the
///   `user_data` pointer passed to `espeak_ng_Synthesize` and echoed in every event.
/// - ``cancel()`` may be called from any thread; the callback sees it at the next chunk
///   (≈ 60 ms of audio) and aborts.
/// - Set-up uses `espeak_ng_Initialize` (same effect as the classic
///   `espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, NULL, 0)`, which would `exit(1)` the process
///   when espeak-ng's data is missing) so a failure is a thrown error.
public final class EspeakEngine: Sendable {
    /// Claimed by the one live engine.
    private static let slot = Atomic<Bool>(false)

    private struct Settings {
        var voice: String
        var rateWPM: Int
    }

    /// Lock over espeak-ng's global state; holds the settings it currently has.
    private let settings: Mutex<Settings>
    /// Raised by ``cancel()``, read by the synthesis callback.
    private let cancelFlag = CancelFlag()

    /// Output sample rate in Hz (espeak-ng's voices render at 22050 Hz).
    public let sampleRate: Int

    /// Initializes espeak-ng and selects `voice` (for example `en-us`, `en-gb`, `en-us+klatt`)
    /// speaking at `rateWPM` words per minute (80...450).
    public init(voice: String = "en-us", rateWPM: Int = 175) throws {
        guard
            Self.slot.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
                .exchanged
        else { throw SpeechError.engineInUse }
        // From here on a throw must give the slot back; deinit does not run for a failed init.
        do {
            espeak_ng_InitializePath(nil)
            var context: espeak_ng_ERROR_CONTEXT? = nil
            let status = espeak_ng_Initialize(&context)
            if status != ENS_OK {
                espeak_ng_ClearErrorContext(&context)
                throw SpeechError.espeak(operation: "initialize", message: Self.message(status))
            }
            try Self.check(
                espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, nil), "initialize output")
            let rate = Int(espeak_ng_GetSampleRate())
            guard rate > 0 else {
                throw SpeechError.espeak(operation: "initialize", message: "no sample rate")
            }
            sampleRate = rate
            espeak_SetSynthCallback(espeakSynthCallback)
            try Self.apply(voice: voice, rateWPM: rateWPM)
            settings = Mutex(Settings(voice: voice, rateWPM: rateWPM))
        } catch {
            _ = espeak_ng_Terminate()
            Self.slot.store(false, ordering: .releasing)
            throw error
        }
    }

    deinit {
        _ = espeak_ng_Terminate()
        Self.slot.store(false, ordering: .releasing)
    }

    /// The voice in use, as last passed to ``init(voice:rateWPM:)`` or ``setVoice(_:)``.
    public var voice: String { settings.locked { $0.voice } }

    /// Speaking rate in words per minute.
    public var rateWPM: Int { settings.locked { $0.rateWPM } }

    /// Switches voice; throws ``SpeechError/unknownVoice(_:)`` and keeps the old one if
    /// espeak-ng does not know `name`.
    public func setVoice(_ name: String) throws {
        try settings.locked { current in
            do {
                try Self.apply(voice: name, rateWPM: current.rateWPM)
                current.voice = name
            } catch {
                // espeak-ng may have half-switched: restore the previous voice.
                try? Self.apply(voice: current.voice, rateWPM: current.rateWPM)
                throw error
            }
        }
    }

    /// Changes the speaking rate (words per minute, clamped by espeak-ng to 80...450).
    public func setRate(wpm: Int) throws {
        try settings.locked { current in
            try Self.check(espeak_ng_SetParameter(espeakRATE, Int32(clamping: wpm), 0), "set rate")
            current.rateWPM = wpm
        }
    }

    /// Renders `text` (plain UTF-8, not SSML) to mono PCM at ``sampleRate``.
    ///
    /// Throws ``SpeechError/cancelled`` if ``cancel()`` is called while it runs.
    public func synthesize(_ text: String) throws -> PCMBuffer {
        try settings.locked { _ in
            cancelFlag.value.store(false, ordering: .relaxed)
            let sink = SynthesisSink(cancel: cancelFlag)
            let status = withExtendedLifetime(sink) { () -> espeak_ng_STATUS in
                let userData = Unmanaged.passUnretained(sink).toOpaque()
                let size = text.utf8.count + 1
                return text.withCString { cText in
                    espeak_ng_Synthesize(
                        cText, size, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, userData)
                }
            }
            if sink.cancelled { throw SpeechError.cancelled }
            try Self.check(status, "synthesize")
            return PCMBuffer(format: AudioFormat(sampleRate: sampleRate), samples: sink.samples)
        }
    }

    /// Aborts the synthesis in progress, if any (for barge-in); a later call is unaffected.
    public func cancel() {
        cancelFlag.value.store(true, ordering: .relaxed)
    }

    /// Language names accepted as voices (for example `en-us`, `en-gb`, `en`, `fr-fr`), every
    /// language of every installed voice, sorted; a `+variant` such as `+klatt2` or `+f3` may be
    /// appended to any of them.
    public func availableVoices() -> [String] {
        settings.locked { _ in Set(Self.installedVoices().flatMap(\.languages)).sorted() }
    }

    // MARK: - Private

    /// Selects voice and rate in espeak-ng (caller holds the lock or is `init`).
    ///
    /// espeak-ng's own lookup knows voice names and file names (`en-US`, `gmw/en`) but not every
    /// language (`en-gb` lives in the file `en`), so an unknown name is retried as a language:
    /// the voice listing it with the best priority, keeping any `+variant`.
    private static func apply(voice: String, rateWPM: Int) throws {
        var status = espeak_ng_SetVoiceByName(voice)
        if status == ENS_VOICE_NOT_FOUND, let resolved = resolve(language: voice) {
            status = espeak_ng_SetVoiceByName(resolved)
        }
        if status == ENS_VOICE_NOT_FOUND { throw SpeechError.unknownVoice(voice) }
        try check(status, "select voice '\(voice)'")
        // A voice change reloads the voice's defaults, so the rate is restated each time.
        try check(espeak_ng_SetParameter(espeakRATE, Int32(clamping: rateWPM), 0), "set rate")
    }

    /// `language[+variant]` → `identifier[+variant]` of the voice that lists the language with
    /// the best (lowest) priority, or nil.
    private static func resolve(language name: String) -> String? {
        let parts = name.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false)
        let language = parts[0].lowercased()
        let variant = parts.count > 1 ? "+" + parts[1] : ""
        let best = installedVoices()
            .compactMap { voice in voice.priority(of: language).map { (voice, $0) } }
            .min { $0.1 < $1.1 }
        return best.map { $0.0.identifier + variant }
    }

    /// One installed voice from `espeak_ListVoices`.
    private struct InstalledVoice {
        var identifier: String
        /// Languages with their priority (lower is a better match).
        var languagePriorities: [(language: String, priority: Int)]

        var languages: [String] { languagePriorities.map(\.language) }

        func priority(of language: String) -> Int? {
            languagePriorities.first { $0.language == language }?.priority
        }
    }

    /// The voice list (espeak-ng caches it; the pointers stay valid until the next listing).
    private static func installedVoices() -> [InstalledVoice] {
        guard var entry = espeak_ListVoices(nil) else { return [] }
        var voices: [InstalledVoice] = []
        while let voice = entry.pointee {
            if let identifier = voice.pointee.identifier {
                voices.append(
                    InstalledVoice(
                        identifier: String(cString: identifier),
                        languagePriorities: languages(voice.pointee.languages)))
            }
            entry += 1
        }
        return voices
    }

    /// Parses `espeak_VOICE.languages`: a priority byte followed by a NUL-terminated name,
    /// repeated, ending with a zero priority byte.
    private static func languages(_ list: UnsafePointer<CChar>?) -> [(language: String, priority: Int)] {
        guard var cursor = list else { return [] }
        var result: [(language: String, priority: Int)] = []
        while cursor.pointee != 0 {
            let priority = Int(UInt8(bitPattern: cursor.pointee))
            let name = String(cString: cursor + 1)
            if !name.isEmpty { result.append((name.lowercased(), priority)) }
            cursor += name.utf8.count + 2
        }
        return result
    }

    private static func check(_ status: espeak_ng_STATUS, _ operation: String) throws {
        guard status != ENS_OK else { return }
        throw SpeechError.espeak(operation: operation, message: message(status))
    }

    /// espeak-ng's own text for a status code.
    private static func message(_ status: espeak_ng_STATUS) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        espeak_ng_GetStatusCodeMessage(status, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "status \(status.rawValue)" : text
    }
}

/// A cancellation flag shared between the engine and its synthesis callback.
private final class CancelFlag: Sendable {
    let value = Atomic<Bool>(false)
}

/// Collects one synthesis' samples; reached from the C callback through `user_data`.
/// Lives only for one `synthesize` call on the thread that holds the engine lock.
private final class SynthesisSink {
    let cancel: CancelFlag
    var samples: [Int16] = []
    var cancelled = false

    init(cancel: CancelFlag) {
        self.cancel = cancel
        samples.reserveCapacity(22050)
    }
}

/// espeak-ng's synchronous-mode callback: append the chunk, return 1 to abort.
private func espeakSynthCallback(
    _ wav: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?
) -> Int32 {
    guard let userData = events?.pointee.user_data else { return 0 }
    let sink = Unmanaged<SynthesisSink>.fromOpaque(userData).takeUnretainedValue()
    if sink.cancel.value.load(ordering: .relaxed) {
        sink.cancelled = true
        return 1
    }
    if let wav, count > 0 {
        sink.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count)))
    }
    return 0
}
