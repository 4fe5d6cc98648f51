import ClawTalkAudio
import Synchronization

/// What the producer of a speech session did.
struct SynthesisReport: Sendable {
    /// Engine of each request that produced audio.
    var engines: [SpeechEngine] = []
    /// One line per request that produced none.
    var failures: [String] = []
}

/// What the player of a speech session heard.
struct PlaybackReport: Sendable {
    /// Seconds heard over all items.
    var playedSeconds = 0.0
    /// An item was stopped.
    var interrupted = false
    /// The first playback failure.
    var error: String?
    /// Any audio was handed to the output.
    var startedAudio = false

    mutating func add(_ outcome: AudioPlayback) {
        playedSeconds += outcome.playedSeconds
        interrupted = interrupted || outcome.interrupted
        if error == nil { error = outcome.error }
    }
}

extension SpeechOutput {
    /// Set when an item's `play` returned (stopped or failed while clips were still coming).
    private final class Ended: Sendable {
        let flag = Atomic<Bool>(false)
        var value: Bool { flag.load(ordering: .acquiring) }
    }

    /// One playing ``AudioOutput`` stream item: consecutive clips of one format.
    private struct OpenItem {
        let format: AudioFormat
        let input: AsyncThrowingStream<PCMBuffer, any Error>.Continuation
        let task: Task<AudioPlayback, Never>
        let ended = Ended()
        let startedAt: ContinuousClock.Instant
        var queuedSeconds = 0.0

        init(format: AudioFormat, audio: any AudioOutput) {
            let (stream, input) = AsyncThrowingStream.makeStream(of: PCMBuffer.self)
            self.format = format
            self.input = input
            let ended = ended
            task = Task {
                let outcome = await audio.play(stream, format: format)
                ended.flag.store(true, ordering: .releasing)
                return outcome
            }
            startedAt = .now
        }

        /// Seconds queued but (by wall clock) not yet played.
        var secondsAhead: Double {
            let elapsed = ContinuousClock.now - startedAt
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            return queuedSeconds - seconds
        }
    }

    /// Plays the session's clips: clips of one format go into one output stream (gapless); a
    /// format change finishes it and opens the next. A permit goes back to the producer once the
    /// audio queued ahead is below `lead`. Ends when the clips end, an item is interrupted or
    /// fails, or the task is cancelled (stop).
    static func play(_ clips: AsyncStream<PCMBuffer>, audio: any AudioOutput, gate: PrefetchGate, lead: Duration)
        async -> PlaybackReport
    {
        var report = PlaybackReport()
        var open: OpenItem?
        let leadSeconds = Double(lead.components.seconds) + Double(lead.components.attoseconds) * 1e-18
        for await buffer in clips {
            if Task.isCancelled { break }
            if let item = open, item.format != buffer.format || item.ended.value {
                item.input.finish()
                let outcome = await item.task.value
                report.add(outcome)
                open = nil
                if outcome.interrupted || outcome.error != nil { break }
            }
            var item = open ?? OpenItem(format: buffer.format, audio: audio)
            report.startedAudio = true
            item.input.yield(buffer)
            item.queuedSeconds += buffer.duration
            open = item
            // Wait while more than `lead` is queued ahead, unless the item ended meanwhile.
            while item.secondsAhead > leadSeconds, !item.ended.value, !Task.isCancelled {
                let excess = min(item.secondsAhead - leadSeconds, 0.1)
                try? await Task.sleep(for: .milliseconds(max(1, Int(excess * 1000))))
            }
            if item.ended.value {
                item.input.finish()
                let outcome = await item.task.value
                report.add(outcome)
                open = nil
                if outcome.interrupted || outcome.error != nil { break }
            }
            gate.release()
        }
        if let item = open {
            // A stop may have raced with opening the item: make sure nothing keeps playing.
            if Task.isCancelled { audio.stop() }
            item.input.finish()
            report.add(await item.task.value)
        }
        gate.close()
        return report
    }
}
