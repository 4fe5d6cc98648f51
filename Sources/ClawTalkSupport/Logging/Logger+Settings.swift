extension Logger {
    /// The logger the configuration asks for: level, text or JSON lines, syslog prefix and
    /// sensitivity from `settings`, writing to `output` (stderr by default).
    public init(settings: LogSettings, category: String, output: LogOutput = .standardError) {
        let sink: any LogSink =
            switch settings.format {
            case .text: TextLogSink(output: output, syslogPrefix: settings.syslogPrefix)
            case .json: JSONLinesLogSink(output: output, syslogPrefix: settings.syslogPrefix)
            }
        self.init(category: category, minimumLevel: settings.level, sink: sink, logSensitive: settings.sensitive)
    }
}
