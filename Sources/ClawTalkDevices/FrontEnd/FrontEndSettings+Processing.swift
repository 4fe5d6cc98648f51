public import ClawTalkSupport

extension FrontEndSettings {
    /// Settings from the config file's `processing.*` (and `mic.preRollMs`); everything else
    /// keeps its default.
    public init(processing: ProcessingSettings, mic: MicSettings = MicSettings()) {
        self.init()
        stages = processing
        preRollMilliseconds = max(mic.preRollMs, 300)
    }
}
