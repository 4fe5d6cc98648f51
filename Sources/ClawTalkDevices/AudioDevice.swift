public import ClawTalkAudio

/// A PulseAudio source (microphone, monitor) or sink (speaker) as the server reports it.
public struct AudioDevice: Sendable, Hashable {
    /// Whether a device records or plays.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Something to capture from (a microphone or a sink's monitor).
        case source
        /// Something to play to.
        case sink
    }

    /// Source or sink.
    public var kind: Kind
    /// The server's device name, e.g. `alsa_input.pci-0000_00_1f.3.analog-stereo`; pass it to streams.
    public var name: String
    /// The human-readable description, e.g. `Built-in Audio Analog Stereo`.
    public var description: String
    /// True for the server's default source or default sink.
    public var isDefault: Bool
    /// True for a source that monitors a sink (it hears what is played, not a microphone).
    public var isMonitor: Bool
    /// The device's native sample rate in Hz.
    public var sampleRate: Int
    /// The device's native channel count.
    public var channels: Int

    /// Creates a device record.
    public init(
        kind: Kind, name: String, description: String, isDefault: Bool = false, isMonitor: Bool = false,
        sampleRate: Int, channels: Int
    ) {
        self.kind = kind
        self.name = name
        self.description = description
        self.isDefault = isDefault
        self.isMonitor = isMonitor
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// The device's native format.
    public var format: AudioFormat {
        AudioFormat(sampleRate: max(sampleRate, 1), channels: max(channels, 1))
    }
}
