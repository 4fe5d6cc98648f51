import ClawTalkAudio
import ClawTalkSupport
import Synchronization

/// The latest microphone level and transcript, written by whoever sees capture frames or
/// delivers transcripts (push-to-talk today; voice wake and Talk mode can feed it too) and read
/// by `run`'s status follower a few times a second. A writer holds a lock for one assignment.
package final class VoiceStatusTap: Sendable {
    private struct Latest {
        var rms: Double?
        var transcript: String?
        var reply: String?
        var realtime: Bool?
    }

    private let latest = Mutex(Latest())

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

    /// Records the provider's reply transcript (realtime Talk).
    func note(reply: String) {
        latest.locked { $0.reply = reply }
    }

    /// Records whether realtime Talk over the relay runs.
    func note(realtimeRelay: Bool) {
        latest.locked { $0.realtime = realtimeRelay }
    }

    /// The reply noted since the last call.
    func takeReply() -> String? {
        latest.locked { value in
            defer { value.reply = nil }
            return value.reply
        }
    }

    /// Whether the relay runs, if that changed since the last call.
    func takeRealtimeRelay() -> Bool? {
        latest.locked { value in
            defer { value.realtime = nil }
            return value.realtime
        }
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
