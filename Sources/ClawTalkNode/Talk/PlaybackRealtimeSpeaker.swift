import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTalk
import Synchronization

/// Realtime Talk's output through the node's one ``PlaybackController`` (talk.md §9.2 item 3), the
/// way native Talk plays a TTS stream: the chunks of a reply are one `.stream` speech item, written
/// without gaps to one open stream, its AEC render reference converted by one continuous resampler
/// and handed to the echo canceller as it is written. The device choice and the unplug fallback are
/// the controller's; a stop is its fast stop.
///
/// One playback item per 20 ms chunk (the first version) drained the stream after every chunk:
/// output came in bursts with gaps, slower than real time (the queue overflowed), and the render
/// reference no longer matched what the speaker played, so the canceller left the reply in the
/// microphone and it started false onsets.
///
/// Each chunk waits in a backlog until the stream is less than ``lead`` ahead of what was heard,
/// so a chunk dropped from the queue (the machine's bound of 32) is really never played; a chunk
/// is done once ``PlaybackHandle/heardSeconds`` passes its end, or when its stream has ended. The
/// stream ends after ``idleEnd`` with nothing new to play (it drains, then its item ends); the next
/// chunk opens a new one. One pump task (10 ms) feeds and reports
/// while anything is queued.
final class PlaybackRealtimeSpeaker: RealtimeSpeaker, Sendable {
    /// Audio handed to the stream ahead of what was heard.
    static let lead = 0.2
    /// A stream with nothing to play ends after this long.
    static let idleEnd = Duration.milliseconds(300)
    /// A new stream starts once this much audio waits (or its first chunk waited as long): the
    /// sink's buffer then stays full, so the echo path is as long as the output latency the echo
    /// canceller is told.
    static let preRoll = 0.06

    private struct Reply {
        let continuation: AsyncThrowingStream<PCMBuffer, any Error>.Continuation
        let handle: PlaybackHandle
        let rate: Int
        /// Frames handed to the stream.
        var fed = 0
        /// When a chunk was last handed to the stream.
        var lastFed: ContinuousClock.Instant
    }

    private struct State {
        var reply: Reply?
        /// Chunks not yet handed to the stream, oldest first.
        var backlog: [(id: Int, samples: [Int16], rate: Int, arrived: ContinuousClock.Instant)] = []
        /// Chunks in the stream, not yet heard: their end in the stream's frames.
        var fed: [(id: Int, end: Int)] = []
        /// Ended streams still playing out, with their chunks not yet heard.
        var draining: [(handle: PlaybackHandle, ids: [Int])] = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Done before anyone waited.
        var done: Set<Int> = []
        var nextId = 0
        var pumping = false
        var paused = false
    }

    private let controller: PlaybackController
    private let state = Mutex(State())
    /// The pump feeding the backlog to the stream: a child of the speaker, not a loose task.
    private let pump = OwnedTaskGroup()

    init(controller: PlaybackController) {
        self.controller = controller
    }

    func enqueue(_ samples: [Int16], sampleRate: Int) -> any RealtimePlaybackItem {
        let (id, startPump) = state.locked { (state: inout State) -> (Int, Bool) in
            let id = state.nextId
            state.nextId += 1
            state.backlog.append((id, samples, sampleRate, .now))
            defer { state.pumping = true }
            return (id, !state.pumping)
        }
        // Fed at once when the stream has room: the first chunk of a reply starts without waiting.
        _ = service()
        if startPump {
            pump.spawn { [self] in
                repeat {
                    try? await Task.sleep(for: .milliseconds(10))
                } while service()
            }
        }
        return Item(speaker: self, id: id)
    }

    func stop() {
        let (reply, resumed) = state.locked { (state: inout State) -> (Reply?, [CheckedContinuation<Void, Never>]) in
            let reply = state.reply
            state.reply = nil
            let ids = state.backlog.map(\.id) + state.fed.map(\.id) + state.draining.flatMap(\.ids)
            state.backlog = []
            state.fed = []
            state.draining = []
            return (reply, ids.compactMap { Self.finish($0, &state) })
        }
        reply?.continuation.finish()
        controller.stop()
        if state.locked({ state in
            defer { state.paused = false }; return state.paused
        }) {
            controller.setPaused(false)
        }
        for continuation in resumed { continuation.resume() }
    }

    var silentSinceNanoseconds: UInt64? {
        state.locked { $0.paused } ? controller.silentSinceNanoseconds : nil
    }

    func setPaused(_ paused: Bool) {
        guard
            state.locked({ state in
                defer { state.paused = paused }; return state.paused != paused
            })
        else { return }
        controller.setPaused(paused)
    }

    /// Feeds the stream up to the lead, reports heard chunks, ends an idle stream; false once
    /// there is nothing left to watch (the pump ends).
    private func service() -> Bool {
        let now = ContinuousClock.now
        typealias Outcome = (ending: Reply?, resumed: [CheckedContinuation<Void, Never>], busy: Bool)
        let (ending, resumed, busy) = state.locked { (state: inout State) -> Outcome in
            var resumed: [CheckedContinuation<Void, Never>] = []
            var ending: Reply?
            for (handle, ids) in state.draining where handle.isDone {
                resumed += ids.compactMap { Self.finish($0, &state) }
            }
            state.draining.removeAll { $0.handle.isDone }
            if let reply = state.reply, reply.handle.isDone {
                // Stopped, failed or ended elsewhere: what it held is done.
                resumed += state.fed.compactMap { Self.finish($0.id, &state) }
                state.fed = []
                state.reply = nil
            }
            if var reply = state.reply {
                let heard = Int(reply.handle.heardSeconds * Double(reply.rate))
                while let first = state.fed.first, first.end <= heard {
                    state.fed.removeFirst()
                    if let continuation = Self.finish(first.id, &state) { resumed.append(continuation) }
                }
                while let chunk = state.backlog.first, chunk.rate == reply.rate,
                    reply.fed - heard < Int(Self.lead * Double(reply.rate))
                {
                    state.backlog.removeFirst()
                    reply.continuation.yield(
                        PCMBuffer(format: AudioFormat(sampleRate: chunk.rate), samples: chunk.samples))
                    reply.fed += chunk.samples.count
                    reply.lastFed = now
                    state.fed.append((chunk.id, reply.fed))
                }
                state.reply = reply
                // Nothing new to play for a while: the stream ends, and its last chunks are done
                // once it has drained (what the sink itself holds never counts as heard while the
                // stream waits for more).
                let idleOver = state.backlog.isEmpty && now - reply.lastFed >= Self.idleEnd
                // Another rate: this stream ends, the next opens in the new format.
                let otherRate = state.backlog.first.map { $0.rate != reply.rate } ?? false
                if idleOver || otherRate {
                    ending = reply
                    state.reply = nil
                    state.draining.append((reply.handle, state.fed.map(\.id)))
                    state.fed = []
                }
            }
            if state.reply == nil, ending == nil, let chunk = state.backlog.first {
                // A chunk at a time keeps the sink's buffer short and its echo path moving with
                // it; the canceller, told the full output latency, then leaves the echo in.
                let waiting = state.backlog.reduce(0) { $0 + $1.samples.count }
                let waited = now - chunk.arrived
                if Double(waiting) >= Self.preRoll * Double(chunk.rate) || waited >= .seconds(Self.preRoll) {
                    state.reply = open(rate: chunk.rate)
                }
                return (nil, resumed, true)
            }
            let busy = state.reply != nil || !state.backlog.isEmpty || !state.draining.isEmpty
            if !busy { state.pumping = false }
            return (ending, resumed, busy)
        }
        ending?.continuation.finish()
        for continuation in resumed { continuation.resume() }
        return busy
    }

    /// A new stream item at `rate` on the controller (fed by the next ``service()``).
    private func open(rate: Int) -> Reply {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: PCMBuffer.self)
        let handle = controller.enqueue(.stream(stream, format: AudioFormat(sampleRate: rate), kind: .speech))
        return Reply(continuation: continuation, handle: handle, rate: rate, lastFed: .now)
    }

    /// Marks chunk `id` done; returns its waiter to resume (outside the lock).
    private static func finish(_ id: Int, _ state: inout State) -> CheckedContinuation<Void, Never>? {
        if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
        state.done.insert(id)
        return nil
    }

    fileprivate func wait(_ id: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.locked { state in
                if state.done.remove(id) != nil { return true }
                state.waiters[id] = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Drops chunk `id` if it has not reached the stream (a chunk in the stream plays: it is
    /// within ``lead`` of the speaker).
    fileprivate func cancel(_ id: Int) {
        let resumed: CheckedContinuation<Void, Never>? = state.locked { state in
            guard let index = state.backlog.firstIndex(where: { $0.id == id }) else { return nil }
            state.backlog.remove(at: index)
            return Self.finish(id, &state)
        }
        resumed?.resume()
    }

    struct Item: RealtimePlaybackItem {
        let speaker: PlaybackRealtimeSpeaker
        let id: Int

        func done() async {
            await speaker.wait(id)
        }

        func cancel() {
            speaker.cancel(id)
        }
    }
}
