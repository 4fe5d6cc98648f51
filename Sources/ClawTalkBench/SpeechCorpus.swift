import ClawTalkAudio
import ClawTalkCodecs
import ClawTalkCommand
import ClawTalkProtocol
import ClawTalkTalk
import Foundation

/// The generated test corpus of benchmarks.md §4: espeak-ng renditions of the triggers
/// (positives, one folder per trigger) and espeak-ng reading texts Debian ships plus near-miss
/// phrases (negatives, folder `negative`), written once into a cache folder as 16 kHz mono WAV
/// files with a `MANIFEST.txt` that ``WakeDataset`` reads. The manifest's comment lines record
/// every clip's source, voice and rate, so its hash identifies the corpus.
struct SpeechCorpus {
    /// How much to generate.
    struct Size: Sendable, Hashable {
        /// espeak-ng voices (with variants) for the positives.
        var voices: [String]
        /// Speaking rates (wpm) for the positives.
        var rates: [Int]
        /// Minutes of read text for the negatives.
        var negativeMinutes: Double

        /// The `--quick` corpus: 4 voices × 3 rates per trigger, 3 minutes of negatives.
        static let quick = Size(
            voices: ["en-us", "en-us+klatt3", "en-gb+m3", "en-us+f2"], rates: [140, 170, 200], negativeMinutes: 3)
        /// The full corpus: 12 voices × 5 rates per trigger, 60 minutes of negatives.
        static let full = Size(
            voices: [
                "en-us", "en-us+m1", "en-us+m3", "en-us+m7", "en-us+f1", "en-us+f3", "en-us+f5", "en-us+klatt",
                "en-us+klatt3", "en-gb", "en-gb+m3", "en-gb-x-rp",
            ], rates: [120, 140, 160, 180, 200], negativeMinutes: 60)
    }

    /// Phrases that share sounds with the default triggers (benchmarks.md §4.2).
    static let nearMisses = [
        "open cloud", "open club", "claws", "commuter", "computing", "a jar of", "okay, now", "clause",
        "cloudy", "compute her", "open the claw", "come pewter",
    ]

    /// Folders holding Debian's shipped texts, read in order.
    static let textFolders = ["/usr/share/common-licenses"]

    let directory: URL
    let triggers: [String]
    let size: Size
    let synthesizer: EspeakSynthesizer
    let progress: (String) -> Void

    /// Generates the corpus (unless the cache already holds this exact one) and loads it.
    func prepare() async throws -> WakeDataset {
        let plan = try clips()
        var manifest = "# clawtalk bench corpus: espeak-ng, 16 kHz mono, 0.5 s lead and 1 s tail of silence\n"
        for clip in plan {
            manifest += "# \(clip.path) source=\(clip.source) voice=\(clip.voice) rate=\(clip.rate)\n"
            manifest += "./\(clip.path)\n"
        }
        let manifestURL = directory.appendingPathComponent(WakeDataset.manifestName)
        if let existing = try? String(contentsOf: manifestURL, encoding: .utf8), existing == manifest,
            let dataset = try WakeDataset.load(directory: directory)
        {
            progress("bench: corpus cached in \(directory.path) (\(plan.count) clips)\n")
            return dataset
        }
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (index, clip) in plan.enumerated() {
            let pcm = try await synthesizer.synthesize(clip.text, voice: clip.voice, rateWPM: clip.rate)
            let speech = try Resampler.resample(pcm, to: AudioFormat.speech.sampleRate)
            var samples = [Int16](repeating: 0, count: 8_000)
            samples += speech.samples
            samples += [Int16](repeating: 0, count: 16_000)
            let url = directory.appendingPathComponent(clip.path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try WAVFile.encode(PCMBuffer(format: .speech, samples: samples)).write(to: url)
            if (index + 1) % 100 == 0 || index + 1 == plan.count {
                progress("bench: corpus \(index + 1)/\(plan.count) clips\n")
            }
        }
        try manifest.write(to: manifestURL, atomically: true, encoding: .utf8)
        guard let dataset = try WakeDataset.load(directory: directory) else {
            throw CLIError.validationFailed("\(manifestURL.path): not written")
        }
        return dataset
    }

    /// One clip to synthesize.
    struct Clip {
        var path: String
        var text: String
        var voice: String
        var rate: Int
        var source: String
    }

    /// Every clip, positives first; negatives take about ``Size/negativeMinutes`` at 175 wpm.
    func clips() throws -> [Clip] {
        var clips: [Clip] = []
        for trigger in triggers {
            let folder = trigger.lowercased().replacingOccurrences(of: " ", with: "_")
            for voice in size.voices {
                for rate in size.rates {
                    let name = "\(voice.replacingOccurrences(of: "+", with: "_"))-\(rate).wav"
                    clips.append(
                        Clip(path: "\(folder)/\(name)", text: trigger, voice: voice, rate: rate, source: "trigger"))
                }
            }
        }
        for (index, phrase) in Self.nearMisses.enumerated() {
            clips.append(
                Clip(
                    path: "negative/near-\(index).wav", text: phrase, voice: size.voices[index % size.voices.count],
                    rate: 170, source: "near-miss"))
        }
        // About 2.9 words per second at 175 wpm; 60 words per clip (~20 s).
        let wordsWanted = Int(size.negativeMinutes * 60 * 175 / 60)
        var words = 0
        var index = 0
        for (name, text) in try Self.texts(excluding: triggers) {
            let tokens = text.split(whereSeparator: \.isWhitespace)
            var start = 0
            while start < tokens.count, words < wordsWanted {
                let end = min(start + 60, tokens.count)
                clips.append(
                    Clip(
                        path: "negative/text-\(index).wav", text: tokens[start..<end].joined(separator: " "),
                        voice: size.voices[index % size.voices.count], rate: 175, source: "text:\(name)#\(start)"))
                words += end - start
                start = end
                index += 1
            }
            if words >= wordsWanted { break }
        }
        return clips
    }

    /// The shipped texts, sorted by path (licence texts: plain English prose), without the words
    /// that contain a trigger: the texts are the negatives, and Apache-2.0 says "work stoppage,
    /// computer failure" — a true "computer", which a wake there would rightly answer.
    static func texts(excluding triggers: [String] = VoiceWakeTriggers.defaults) throws -> [(String, String)] {
        let keys = triggers.map { $0.lowercased().filter(\.isLetter) }.filter { !$0.isEmpty }
        return try shippedTexts().map { name, text in
            let words = text.split(whereSeparator: \.isWhitespace).filter { word in
                let letters = word.lowercased().filter(\.isLetter)
                return !keys.contains { letters.contains($0) }
            }
            return (name, words.joined(separator: " "))
        }
    }

    private static func shippedTexts() throws -> [(String, String)] {
        var result: [(String, String)] = []
        for folder in textFolders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names.sorted() {
                let path = folder + "/" + name
                var isDirectory: ObjCBool = false
                // Links (GPL → GPL-3) would read the same text twice.
                guard (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil,
                    FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    let text = try? String(contentsOfFile: path, encoding: .utf8)
                else { continue }
                result.append((path, text))
            }
        }
        guard !result.isEmpty else {
            throw CLIError.validationFailed("no texts found in \(textFolders.joined(separator: ", ")) for negatives")
        }
        return result
    }
}
