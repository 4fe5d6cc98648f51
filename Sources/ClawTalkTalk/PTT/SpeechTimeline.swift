public import ClawTalkAudio

/// Where a capture had speech, from its frames' speech decisions, and the audio worth
/// transcribing: the speech with a margin either side, long silences between cut out.
///
/// Why: Whisper transcribes in 30 s windows, each conditioned on the text before it. A capture
/// longer than 30 s whose second window is silence (a push-to-talk held open after the sentence,
/// or a gateway-started capture nobody stopped) comes back with the sentence twice — the silent
/// window "repeats" the previous text (faster-whisper base, 1 s of silence + a 2.4 s sentence +
/// 38 s of silence: segments 0–4 s and 30–34 s, both the sentence). Without the silence the
/// audio fits one window and the text is there once.
///
/// Rules, in capture time (seconds from the first pre-roll sample):
/// - no speech frame among the frames seen: nothing of theirs is kept (silence is never sent to
///   a recogniser: a long silent window sent Whisper decoding for 17 s, and requests queued
///   behind it timed out);
/// - each run of speech frames is kept with ``margin`` before and after;
/// - audio after the last frame seen is kept (frames not yet judged);
/// - a silence between kept parts is cut only when it is at least ``minimumCut`` long, so a short
///   pause inside a sentence (or a quiet word the voice detector missed) stays.
public struct SpeechTimeline: Sendable, Hashable {
    /// Silence kept before and after each run of speech, in seconds (0.5 s).
    public var margin: Double
    /// Shortest silence between kept parts that is cut out, in seconds (2 s).
    public var minimumCut: Double
    /// Runs of speech frames as `[start, end)` in seconds.
    public private(set) var speech: [Range<Double>] = []
    /// End of the last frame seen, in seconds (0 before any).
    public private(set) var seenUntil: Double = 0
    private var lastFrameTime: Double?

    /// An empty timeline.
    public init(margin: Double = 0.5, minimumCut: Double = 2.0) {
        self.margin = margin
        self.minimumCut = minimumCut
    }

    /// Takes one frame (its length is the step from the previous frame, 20 ms for the first).
    public mutating func record(_ frame: UtteranceFrame) {
        let length = lastFrameTime.map { max(frame.time - $0, 0.001) } ?? 0.02
        lastFrameTime = frame.time
        let end = frame.time + length
        seenUntil = max(seenUntil, end)
        guard frame.isSpeech else { return }
        if let last = speech.last, frame.time <= last.upperBound + 1e-6 {
            speech[speech.count - 1] = last.lowerBound..<max(end, last.upperBound)
        } else {
            speech.append(frame.time..<end)
        }
    }

    /// Seconds of speech seen.
    public var speechSeconds: Double { speech.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    /// The parts of `duration` seconds of audio to keep, in order; none of the frames seen
    /// when none of them was speech (only audio after them, not judged yet).
    public func keptParts(duration: Double) -> [Range<Double>] {
        guard duration > 0 else { return [] }
        guard !speech.isEmpty else { return seenUntil < duration ? [seenUntil..<duration] : [] }
        var parts = speech.map { max($0.lowerBound - margin, 0)..<min($0.upperBound + margin, duration) }
        if seenUntil < duration { parts.append(seenUntil..<duration) }
        var merged: [Range<Double>] = []
        for part in parts where !part.isEmpty {
            if let last = merged.last, part.lowerBound - last.upperBound < minimumCut {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, part.upperBound)
            } else {
                merged.append(part)
            }
        }
        return merged
    }

    /// `audio` up to the end of the frames seen, with the long silences cut out: what a
    /// transcription at a pause sends (the capture may hold more than its frames judged).
    public func judged(_ audio: PCMBuffer) -> PCMBuffer {
        let end = min(
            Int((seenUntil * Double(audio.format.sampleRate)).rounded()) * audio.format.channels, audio.samples.count)
        return trimmed(PCMBuffer(format: audio.format, samples: Array(audio.samples[0..<end])))
    }

    /// `audio` with the long silences cut out (``keptParts(duration:)``).
    public func trimmed(_ audio: PCMBuffer) -> PCMBuffer {
        let rate = Double(audio.format.sampleRate)
        let channels = audio.format.channels
        let count = audio.samples.count
        var samples: [Int16] = []
        for part in keptParts(duration: audio.duration) {
            let start = min(Int((part.lowerBound * rate).rounded()) * channels, count)
            let end = min(Int((part.upperBound * rate).rounded()) * channels, count)
            if start < end { samples += audio.samples[start..<end] }
        }
        return PCMBuffer(format: audio.format, samples: samples)
    }
}
