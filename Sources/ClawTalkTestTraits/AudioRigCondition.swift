import Foundation
public import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test only where the audio rig is up: `CLAWTALK_DEVICE_TESTS=1`, which
    /// `scripts/test` sets once it has started the rig (`scripts/audio-rig start`). Elsewhere the
    /// test is skipped, and the skip says why.
    public static var needsAudioRig: Self {
        .enabled(
            if: ProcessInfo.processInfo.environment["CLAWTALK_DEVICE_TESTS"] == "1",
            "needs the audio rig: scripts/test starts it and sets CLAWTALK_DEVICE_TESTS=1")
    }
}
