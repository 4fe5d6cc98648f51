public import ClawTalkSupport

extension FrontEndSettings {
    /// Settings from the config file's `processing.*` (and `mic.preRollMs`); everything else
    /// keeps its default.
    public init(processing: ProcessingSettings, mic: MicSettings = MicSettings()) {
        self.init()
        echoCancellation = processing.echoCancellation
        echoSuppression = processing.aecSuppression
        noiseSuppression = processing.noiseSuppression
        gainControl = processing.gainControl
        highPassFilter = processing.highPassFilter
        preRollMilliseconds = max(mic.preRollMs, 300)
    }
}
