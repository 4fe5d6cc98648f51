public import ClawTalkSupport
import Foundation

/// Turns `wyoming-faster-whisper`'s output into `stt.server.log` events.
///
/// The server is started with `--log-format` ``format`` (`LEVEL|logger|message`), so each line's
/// level and origin are known. Its request handler logs every transcript at INFO
/// (`wyoming_faster_whisper.dispatch_handler`), so those messages go into a `transcript` field,
/// which the node's log redacts unless `log.sensitive`; everything else (warnings, tracebacks)
/// is logged as it is, under `line`.
public enum WyomingServerLog {
    /// The Python logging format passed to the server.
    public static let format = "%(levelname)s|%(name)s|%(message)s"
    /// The logger whose INFO lines are transcripts.
    static let transcriptLogger = "wyoming_faster_whisper.dispatch_handler"
    /// `clawtalk-wake`'s transcript logger (DEBUG, with `--debug` only).
    static let wakeTranscriptLogger = "clawtalk_wake.transcript"
    /// `clawtalk-speech`'s transcript logger (DEBUG, with `--debug` only).
    static let speechTranscriptLogger = "clawtalk_speech.transcript"

    /// One output line as a log event: its level, and its fields.
    public static func event(for line: String) -> (level: LogLevel, fields: [String: LogValue]) {
        let parts = line.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let level = level(String(parts[0])) else {
            return (.notice, ["line": .string(line)])
        }
        let origin = String(parts[1])
        let message = String(parts[2])
        if (origin == transcriptLogger && level == .info) || origin == wakeTranscriptLogger
            || origin == speechTranscriptLogger
        {
            return (.debug, ["logger": .string(origin), "transcript": .string(message)])
        }
        return (level, ["logger": .string(origin), "line": .string(message)])
    }

    /// A handler that logs each line on `logger` as `<name>.server.log` (`stt` by default).
    public static func forwarder(_ logger: Logger, name: String = "stt") -> @Sendable (String) -> Void {
        { line in
            let event = event(for: line)
            logger.log(event.level, "\(name).server.log", event.fields)
        }
    }

    /// `lines` with transcript messages replaced by their length, unless the log is sensitive.
    static func redactingTranscripts(_ lines: String, logger: Logger) -> String {
        guard !logger.logSensitive else { return lines }
        return lines.components(separatedBy: " | ").map { line in
            guard case .string(let text)? = event(for: line).fields["transcript"] else { return line }
            return "INFO|\(transcriptLogger)|<redacted len=\(text.count)>"
        }.joined(separator: " | ")
    }

    private static func level(_ name: String) -> LogLevel? {
        switch name {
        case "DEBUG": .debug
        case "INFO": .info
        case "WARNING": .warning
        case "ERROR", "CRITICAL": .error
        default: nil
        }
    }
}
