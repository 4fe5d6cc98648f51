public import ClawTalkSpeech
import Foundation

/// The installed Whisper server (scripts/setup, scripts/fetch-whisper-model).
public enum WakeWhisper {
    /// Without the server's initial prompt ("OpenClaw, Claude, computer."): after it, Whisper now
    /// and then leaves out a leading "computer" spoken by espeak-ng (a synthetic-voice artifact:
    /// on the recorded benchmark clips the verifier confirms every true hit either way).
    public static let configuration: WyomingServerProcess.Configuration = {
        var configuration = WyomingServerProcess.Configuration.installed()
        configuration.initialPrompt = nil
        return configuration
    }()
    /// Whether the server and its model are installed.
    public static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: configuration.executable) && configuration.hasModel
    }
}
