public import ClawTalkAudio
public import ClawTalkSupport
import Synchronization

/// Tries a primary engine and, when it cannot be used at all (its server is unreachable or the
/// engine is unavailable), answers with a fallback engine instead.
///
/// Errors that mean the primary engine is there but failed on this audio (a protocol error, a
/// timeout, an unsupported format) are not hidden: they are thrown. The switch is logged once
/// (`stt.fallback`, warning) until the primary answers again (`stt.recovered`, notice); each
/// fallback ``Transcript`` names the reason in ``Transcript/fallbackReason``.
public final class FallbackTranscriber: Transcriber {
    /// The engine tried first.
    public let primary: any Transcriber
    /// The engine used when the primary cannot be reached.
    public let fallback: any Transcriber
    private let logger: Logger
    private let primaryDown = Mutex(false)

    /// `primary` backed by `fallback`.
    public init(primary: any Transcriber, fallback: any Transcriber, logger: Logger = .discarding) {
        self.primary = primary
        self.fallback = fallback
        self.logger = logger
    }

    /// `wyoming|pocketsphinx`: the primary's name, then the fallback's.
    public var name: String { "\(primary.name)|\(fallback.name)" }

    /// Whether the last attempt found the primary engine unreachable.
    public var isPrimaryDown: Bool { primaryDown.locked { $0 } }

    /// Transcribes with the primary engine, or with the fallback when the primary is unreachable.
    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
        do {
            let transcript = try await primary.transcribe(audio, options: options)
            if setPrimaryDown(false) {
                logger.notice("stt.recovered", ["engine": .string(primary.name)])
            }
            return transcript
        } catch let error as SpeechError where Self.isUnavailable(error) {
            if !setPrimaryDown(true) {
                logger.warning(
                    "stt.fallback",
                    [
                        "engine": .string(primary.name), "fallback": .string(fallback.name),
                        "reason": .string("\(error)"),
                    ])
            }
            var transcript = try await fallback.transcribe(audio, options: options)
            let reason = "\(primary.name): \(error)"
            transcript.fallbackReason = transcript.fallbackReason.map { "\(reason); \($0)" } ?? reason
            return transcript
        }
    }

    /// Records whether the primary is down and returns what was recorded before.
    private func setPrimaryDown(_ down: Bool) -> Bool {
        primaryDown.locked { state in
            let previous = state
            state = down
            return previous
        }
    }

    /// Whether `error` means the engine cannot be used at all (rather than failed on this audio).
    public static func isUnavailable(_ error: SpeechError) -> Bool {
        switch error {
        case .sttServerUnreachable, .sttEngineUnavailable: true
        default: false
        }
    }
}
