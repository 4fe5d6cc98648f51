/// In-process audio processing with WebRTC APM (`processing.*`).
public struct ProcessingSettings: Sendable, Hashable {
    /// Echo canceller. Default `aec`.
    public var echoCancellation = EchoCancellationMode.aec
    /// Strength of AEC suppression (only for `aec`). Default `moderate`.
    public var aecSuppression = SuppressionLevel.moderate
    /// Noise suppression. Default `off`.
    public var noiseSuppression = NoiseSuppressionLevel.off
    /// Automatic gain control. Default `off`.
    public var gainControl = GainControlMode.off
    /// High-pass filter removing rumble below ~80 Hz. Default true.
    public var highPassFilter = true

    /// Creates settings; every argument defaults to the documented default of its property.
    public init(
        echoCancellation: EchoCancellationMode = .aec, aecSuppression: SuppressionLevel = .moderate,
        noiseSuppression: NoiseSuppressionLevel = .off, gainControl: GainControlMode = .off,
        highPassFilter: Bool = true
    ) {
        self.echoCancellation = echoCancellation
        self.aecSuppression = aecSuppression
        self.noiseSuppression = noiseSuppression
        self.gainControl = gainControl
        self.highPassFilter = highPassFilter
    }

    /// Whether the echo canceller must run (and playback be fed back as its reference).
    public var needsEchoCancellation: Bool { echoCancellation != .off }

    /// Whether the APM must run at all (any stage enabled).
    public var needsAudioProcessing: Bool {
        needsEchoCancellation || noiseSuppression != .off || gainControl != .off || highPassFilter
    }
}

/// Echo canceller choice (`processing.echoCancellation`).
public enum EchoCancellationMode: String, Sendable, CaseIterable {
    /// No echo cancellation (half-duplex Talk unless the output is isolated).
    case off
    /// Full WebRTC AEC.
    case aec
    /// WebRTC mobile echo control: cheaper, weaker.
    case aecm
}

/// AEC suppression strength (`processing.aecSuppression`).
public enum SuppressionLevel: String, Sendable, CaseIterable {
    /// Least suppression, least distortion.
    case low
    /// The WebRTC default.
    case moderate
    /// Most suppression.
    case high
}

/// Noise suppression strength (`processing.noiseSuppression`).
public enum NoiseSuppressionLevel: String, Sendable, CaseIterable {
    /// Disabled.
    case off
    /// 6 dB.
    case low
    /// 10 dB.
    case moderate
    /// 15 dB.
    case high
    /// 20 dB.
    case veryhigh
}

/// Automatic gain control (`processing.gainControl`).
public enum GainControlMode: String, Sendable, CaseIterable {
    /// Disabled.
    case off
    /// Adaptive digital gain.
    case adaptive
    /// Fixed digital gain.
    case fixed
}
