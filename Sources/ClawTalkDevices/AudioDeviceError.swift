public import ClawTalkAudio

/// Why a sound-server connection, an audio device or the echo/noise processor failed.
public enum AudioDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No PulseAudio (or pipewire-pulse) server answered; the text says which server and why.
    case serverUnavailable(String)
    /// A capture or playback stream could not be opened on `device` (nil = the default device).
    case open(device: String?, message: String)
    /// Reading, writing, draining, flushing or querying an open stream failed.
    case io(String)
    /// No device matched `name`; `available` lists the names that exist.
    case notFound(name: String, available: [String])
    /// The audio processor rejected its settings or a frame.
    case processing(String)
    /// The requested sample format is not supported here.
    case format(AudioFormat)
    /// The owner stopped the stream while it was opening or waiting for audio.
    case interrupted

    /// One line, suitable for logs and CLI errors.
    public var description: String {
        switch self {
        case .serverUnavailable(let message):
            return "sound server unavailable: \(message)"
        case .open(let device, let message):
            return "cannot open audio device \(device.map { "'\($0)'" } ?? "(default)"): \(message)"
        case .io(let message):
            return "audio stream error: \(message)"
        case .notFound(let name, let available):
            let list = available.isEmpty ? "none" : available.joined(separator: ", ")
            return "no audio device named '\(name)' (available: \(list))"
        case .processing(let message):
            return "audio processing error: \(message)"
        case .format(let format):
            return "unsupported audio format: \(format)"
        case .interrupted:
            return "stopped while waiting for the sound server"
        }
    }
}
