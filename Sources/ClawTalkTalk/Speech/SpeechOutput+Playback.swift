import ClawTalkAudio
import ClawTalkSupport
import Synchronization

/// What the producer of a speech session did.
struct SynthesisReport: Sendable {
    /// Engine of each request that produced audio.
    var engines: [SpeechEngine] = []
    /// One line per request that produced none.
    var failures: [String] = []
    /// Segments skipped because their segment was withdrawn before synthesis.
    var withdrawn = 0
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
    /// Clips dropped because their segment was withdrawn before they played.
    var withdrawn = 0

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
            queuedSeconds - (ContinuousClock.now - startedAt).inSeconds
        }
    }

    /// Plays the session's clips: clips of one format go into one output stream (gapless); a
    /// format change finishes it and opens the next. A clip is held back until the audio queued
    /// ahead of it is below `handoff` — until then a rewrite can withdraw its segment
    /// (`withdrawals`), and a withdrawn clip is dropped. A permit goes back to the producer once the audio queued ahead
    /// is below `lead`. Ends when the clips end, an item is interrupted or fails, or the task is
    /// cancelled (stop).
    static func play(
        _ clips: AsyncStream<SpeechClip>, withdrawals: SpeechWithdrawals, audio: any AudioOutput, gate: PrefetchGate,
        lead: Duration, handoff: Duration
    ) async -> PlaybackReport {
        var report = PlaybackReport()
        var open: OpenItem?
        for await clip in clips {
            if Task.isCancelled { break }
            let buffer = clip.pcm
            if let item = open {
                if item.format == buffer.format { await wait(item, whileAheadOver: handoff) }
                if item.format != buffer.format || item.ended.value {
                    item.input.finish()
                    let outcome = await item.task.value
                    report.add(outcome)
                    open = nil
                    if outcome.interrupted || outcome.error != nil { break }
                }
            }
            if Task.isCancelled { break }
            guard withdrawals.admits(clip.segment) else {
                report.withdrawn += 1
                gate.release()
                continue
            }
            var item = open ?? OpenItem(format: buffer.format, audio: audio)
            report.startedAudio = true
            item.input.yield(buffer)
            item.queuedSeconds += buffer.duration
            open = item
            await wait(item, whileAheadOver: lead)
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

    /// Waits while more than `limit` of `item`'s audio is queued ahead, unless it ended or the
    /// task was cancelled.
    private static func wait(_ item: OpenItem, whileAheadOver limit: Duration) async {
        let seconds = limit.inSeconds
        while item.secondsAhead > seconds, !item.ended.value, !Task.isCancelled {
            let excess = min(item.secondsAhead - seconds, 0.1)
            try? await Task.sleep(for: .milliseconds(max(1, Int(excess * 1000))))
        }
    }
}
