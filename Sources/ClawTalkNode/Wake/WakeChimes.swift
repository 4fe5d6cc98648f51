import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import Foundation

/// The trigger and send chimes of voice wake (`wake.triggerChime`, `wake.sendChime`, talk
/// contract talk.md §6.5), rendered once and played on the node's ``PlaybackController``.
package struct WakeChimes: Sendable {
    /// The trigger chime, nil for `none` (or an unusable file).
    let trigger: PCMBuffer?
    /// The send chime, nil for `none` (or an unusable file).
    let send: PCMBuffer?

    /// Chimes for `settings`; without echo control a chime file must last ≤ 150 ms (else it is
    /// not played, with an error logged).
    init(settings: WakeSettings, echoControlled: Bool, environment: [String: String], logger: Logger) {
        func load(_ source: ChimeSource, builtin: Chime) -> PCMBuffer? {
            switch source {
            case .none:
                return nil
            case .builtin:
                return builtin.render(sampleRate: 24_000)
            case .file(let path):
                let home = environment["HOME"] ?? NSHomeDirectory()
                let expanded = path.hasPrefix("~/") ? home + path.dropFirst(1) : path
                do {
                    return try Chime.load(
                        file: URL(fileURLWithPath: expanded),
                        maximumMilliseconds: echoControlled ? nil : Chime.maximumMilliseconds)
                } catch {
                    logger.error("wake.chime.unusable", ["path": .string(path), "error": .string("\(error)")])
                    return nil
                }
            }
        }
        trigger = load(settings.triggerChime, builtin: .trigger)
        send = load(settings.sendChime, builtin: .send)
    }

    /// A player for ``VoiceWakeController`` over `playback`.
    func player(_ playback: PlaybackController) -> VoiceWakeController.ChimePlayer {
        { [trigger, send] chime in
            let buffer = chime == .trigger ? trigger : send
            guard let buffer else { return }
            _ = await playback.play(.pcm(buffer, kind: .chime))
        }
    }
}
