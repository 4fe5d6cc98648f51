import ClawTalkAudio
import ClawTalkDevices
import ClawTalkTalk

/// Realtime Talk's output through the node's one ``PlaybackController`` (talk.md §9.2 item 3):
/// each 20 ms chunk is a speech item queued behind the others (consecutive items share the open
/// stream), so the device choice, the unplug fallback and the AEC render reference work as for
/// any reply; a stop is the controller's fast stop.
struct PlaybackRealtimeSpeaker: RealtimeSpeaker {
    let controller: PlaybackController

    func enqueue(_ samples: [Int16], sampleRate: Int) -> any RealtimePlaybackItem {
        Item(
            handle: controller.enqueue(
                .pcm(PCMBuffer(format: AudioFormat(sampleRate: sampleRate), samples: samples), kind: .speech)))
    }

    func stop() {
        controller.stop()
    }

    struct Item: RealtimePlaybackItem {
        let handle: PlaybackHandle

        func done() async {
            _ = await handle.outcome()
        }

        func cancel() {
            handle.cancel()
        }
    }
}
