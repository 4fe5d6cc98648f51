import ClawTalkAudio
import Foundation

/// The turn bench's utterances: everyday assistant questions and commands read by espeak-ng in
/// a few voices and rates, each 1.5–6 s of speech, with their reference text. Clips are written
/// once as 16 kHz mono WAV into a cache folder (`turn-v1` beside the generated corpus) and read
/// back on later runs.
struct TurnCorpus {
    /// One utterance.
    struct Clip: Sendable {
        /// What was said (the WER reference).
        var text: String
        /// The espeak-ng voice.
        var voice: String
        /// Words per minute.
        var rate: Int
        /// 16 kHz mono, 0.2 s of silence on both sides.
        var samples: [Int16]

        /// Seconds from the first to the last sample above −40 dBFS.
        var speechSeconds: Double {
            guard let bounds = LoopbackBench.speechBounds(samples) else { return 0 }
            return Double(bounds.end - bounds.start) / 16_000
        }

        /// `text` (voice, rate): for progress lines.
        var label: String { "\"\(text)\" (\(voice), \(rate) wpm)" }
    }

    /// The sentences: no trigger word, no number over twenty (``WordErrorRate`` folds number
    /// words only up to there), nothing Whisper has to guess the spelling of.
    static let sentences = [
        "what time is it", "set a timer for ten minutes", "what's the weather like in Paris tomorrow",
        "remind me to call my mother at six", "turn off the lights in the kitchen", "play some quiet music",
        "how long does it take to boil an egg", "add milk and bread to the shopping list",
        "what is on my calendar today", "how far is the moon from the earth", "tell me a joke",
        "what's the capital of Canada", "send a message to Sarah saying I'm running late",
        "how do you make pancakes", "set an alarm for seven in the morning", "what's the news today",
        "translate good morning into Spanish", "how many days are left until Christmas",
        "turn the volume down a little", "what should I cook for dinner tonight", "is it going to rain this afternoon",
        "read me the last email I got", "how tall is the Eiffel Tower", "start a timer for three minutes",
        "what's a good book to read on holiday", "call the dentist tomorrow morning", "stop the music",
        "how do I get to the train station", "what's the score of the football game", "open the garage door",
        "give me a recipe for tomato soup", "what does the word serendipity mean", "lock the front door",
        "how much is a cup in grams", "what time does the supermarket close", "dim the lights in the living room",
        "who wrote the book war and peace", "what's the weather this weekend", "turn on the heating",
        "how many minutes are in a day",
    ]

    /// espeak-ng voices, combined round-robin with the sentences and ``rates``.
    static let voices = ["en-us", "en-gb", "en-us+f2", "en-us+m3"]
    /// Speaking rates (words per minute).
    static let rates = [160, 175, 190]

    /// Where the clips are cached.
    let directory: URL
    /// Synthesizes `text` in `voice` at `rate` wpm: 16 kHz mono with 0.2 s of silence on both sides.
    let speak: (String, String, Int) async throws -> [Int16]
    /// Progress lines (stderr).
    let progress: (String) -> Void

    /// Every sentence once, voices and rates in rotation, kept when its speech lasts 1.5–6 s.
    func clips() async throws -> [Clip] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var clips: [Clip] = []
        var made = 0
        for (index, text) in Self.sentences.enumerated() {
            let voice = Self.voices[index % Self.voices.count]
            let rate = Self.rates[(index / Self.voices.count) % Self.rates.count]
            let name = "\(index)-\(voice.replacingOccurrences(of: "+", with: "_"))-\(rate).wav"
            let url = directory.appendingPathComponent(name)
            var samples: [Int16]
            if let data = try? Data(contentsOf: url), let pcm = try? WAVFile.decode(data) {
                samples = pcm.samples
            } else {
                samples = try await speak(text, voice, rate)
                try WAVFile.encode(PCMBuffer(format: .speech, samples: samples)).write(to: url)
                made += 1
            }
            let clip = Clip(text: text, voice: voice, rate: rate, samples: samples)
            if (1.5...6).contains(clip.speechSeconds) { clips.append(clip) }
        }
        progress(
            "bench turn: \(clips.count) of \(Self.sentences.count) utterances of 1.5–6 s "
                + "(\(made) generated, the rest cached in \(directory.path))\n")
        guard clips.count >= 3 else {
            throw BenchTool.Failure(description: "only \(clips.count) utterances last 1.5–6 s")
        }
        return clips
    }
}
