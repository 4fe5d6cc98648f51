import ClawTalkAudio
import ClawTalkCodecs
import ClawTalkCommand
import ClawTalkDevices
import ClawTalkSpeech
import Foundation

/// `clawtalk say` without a gateway: decode a clip or synthesize with espeak-ng, then play it
/// through the one playback controller.
enum LocalPlayback {
    /// Decodes the clip at `path` (format from extension and magic bytes) and plays it to `sink`.
    static func playClip(path: String, sink: String?) async throws -> Int32 {
        let url = URL(fileURLWithPath: path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.validationFailed("cannot read '\(path)': no such file or not readable")
        }
        let pcm: PCMBuffer
        do {
            pcm = try ClipDecoder.decode(data: data, fileExtension: url.pathExtension.isEmpty ? nil : url.pathExtension)
        } catch {
            throw LocalPlaybackError.undecodable(path: path, reason: "\(error)")
        }
        return try await play(.pcm(pcm, kind: .speech), sink: sink)
    }

    /// Speaks `text` sentence by sentence: synthesis of the next sentence overlaps playback.
    static func speak(text: String, voice: String, rateWPM: Int, sink: String?) async throws -> Int32 {
        let engine = try EspeakEngine(voice: voice, rateWPM: rateWPM)
        let format = AudioFormat(sampleRate: engine.sampleRate)
        let segments = SentenceSplitter.split(text)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: PCMBuffer.self)
        let producer = Task.detached {
            do {
                for segment in segments {
                    try Task.checkCancellation()
                    continuation.yield(try engine.synthesize(segment))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        defer { producer.cancel() }
        return try await play(.stream(stream, format: format, kind: .speech), sink: sink)
    }

    private static func play(_ item: PlaybackItem, sink: String?) async throws -> Int32 {
        let controller = PlaybackController(sink: sink)
        defer { controller.close() }
        let outcome = await controller.play(item)
        if let error = outcome.error {
            if case AudioDeviceError.serverUnavailable(let reason) = error {
                throw CLIError.unavailable("no sound server: \(reason)")
            }
            throw LocalPlaybackError.playback("\(error)")
        }
        return ExitCode.success.rawValue
    }
}

/// Failures of local playback, one line each.
enum LocalPlaybackError: Error, CustomStringConvertible {
    /// The clip could not be decoded.
    case undecodable(path: String, reason: String)
    /// Playback failed (device missing, watchdog, …).
    case playback(String)

    var description: String {
        switch self {
        case .undecodable(let path, let reason): "cannot play '\(path)': \(reason)"
        case .playback(let reason): "playback failed: \(reason)"
        }
    }
}
