import Foundation

/// Speech generated for a test with espeak-ng and sox: 16 kHz mono s16 WAV files.
public enum SpokenClip {
    /// Writes `text` (espeak-ng SSML: `<break time="800ms"/>` makes a pause) spoken by `voice`,
    /// resampled to 16 kHz mono with `padBefore`/`padAfter` seconds of silence, to `name` in
    /// `directory`; returns the path.
    public static func wav(
        _ text: String, voice: String = "en-us+klatt3", padBefore: Double = 1, padAfter: Double = 2.5,
        name: String = "speech.wav", in directory: TempDirectory
    ) throws -> String {
        let raw = directory.path("raw-\(name)")
        let path = directory.path(name)
        try runTool("espeak-ng", ["-m", "-v", voice, "-w", raw, text])
        try runTool(
            "sox",
            // -R: repeatable dither (a fixed seed), so the same text gives the same samples on
            // every run; sox's default random dither made marginal detections flip between runs.
            ["-R", raw, "-r", "16000", "-c", "1", "-b", "16", path, "pad", String(padBefore), String(padAfter)])
        return path
    }
}
