public import ClawTalkSupport

extension FrontEndSettings {
    /// Settings from the config file's `processing.*` (and `mic.preRollMs`); everything else
    /// keeps its default.
    public init(processing: ProcessingSettings, mic: MicSettings = MicSettings()) {
        self.init()
        switch processing.echoCancellation {
        case .off: echoCancellation = .off
        case .aec: echoCancellation = .standard
        case .aecm: echoCancellation = .mobile
        }
        switch processing.aecSuppression {
        case .low: echoSuppression = .low
        case .moderate: echoSuppression = .moderate
        case .high: echoSuppression = .high
        }
        switch processing.noiseSuppression {
        case .off: noiseSuppression = .off
        case .low: noiseSuppression = .low
        case .moderate: noiseSuppression = .moderate
        case .high: noiseSuppression = .high
        case .veryhigh: noiseSuppression = .veryHigh
        }
        switch processing.gainControl {
        case .off: gainControl = .off
        case .adaptive: gainControl = .adaptiveDigital
        case .fixed: gainControl = .fixedDigital
        }
        highPassFilter = processing.highPassFilter
        preRollMilliseconds = max(mic.preRollMs, 300)
    }
}
