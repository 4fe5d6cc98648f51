import ClawTalkAudio
import ClawTalkSupport
import Synchronization

/// The latest microphone level and transcript, written by whoever sees capture frames or
/// delivers transcripts (push-to-talk today; voice wake and Talk mode can feed it too) and read
/// by `run`'s status follower a few times a second. A writer holds a lock for one assignment.
package final class VoiceStatusTap: Sendable {
    private let latest = Mutex<(rms: Double?, transcript: String?)>((nil, nil))

    /// An empty tap.
    init() {}

    /// Records one frame's RMS (full-scale amplitude, 0…1).
    func record(rms: Double) {
        latest.locked { $0.rms = rms }
    }

    /// Records a delivered transcript.
    func note(transcript: String) {
        latest.locked { $0.transcript = transcript }
    }

    /// The level recorded since the last call, in dBFS; nil when nothing new arrived.
    func takeLevel() -> Double? {
        latest.locked { value in
            defer { value.rms = nil }
            return value.rms.map(LevelMeter.dBFS)
        }
    }

    /// The transcript noted since the last call.
    func takeTranscript() -> String? {
        latest.locked { value in
            defer { value.transcript = nil }
            return value.transcript
        }
    }
}
