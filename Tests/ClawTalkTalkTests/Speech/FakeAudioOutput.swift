import ClawTalkAudio
import ClawTalkSupport
import ClawTalkTalk
import Synchronization

/// An ``AudioOutput`` that records what it was asked to play. With `realTime` it takes as
/// long as the audio lasts (so a stop can interrupt it); otherwise it returns at once.
final class FakeAudioOutput: AudioOutput {
    /// One played item: its format and the buffers (frame counts) it received.
    struct Item: Sendable, Equatable {
        var format: AudioFormat
        var frames: [Int]

        var seconds: Double { Double(frames.reduce(0, +)) / Double(format.sampleRate) }
    }

    private struct State {
        var items: [Item] = []
        var stopEpoch = 0
        var stops = 0
    }

    private let state = Mutex(State())
    let realTime: Bool

    init(realTime: Bool = false) {
        self.realTime = realTime
    }

    var items: [Item] { state.locked { $0.items } }
    var stops: Int { state.locked { $0.stops } }
    /// Every buffer's format, in order.
    var formats: [AudioFormat] { items.map(\.format) }
    var totalSeconds: Double { items.reduce(0) { $0 + $1.seconds } }

    func play(_ buffers: AsyncThrowingStream<PCMBuffer, any Error>, format: AudioFormat) async -> AudioPlayback {
        let (index, epoch) = state.locked { state in
            state.items.append(Item(format: format, frames: []))
            return (state.items.count - 1, state.stopEpoch)
        }
        var played = 0.0
        do {
            for try await buffer in buffers {
                if stopped(since: epoch) { break }
                state.locked { $0.items[index].frames.append(buffer.frameCount) }
                if realTime {
                    var remaining = buffer.duration
                    while remaining > 0, !stopped(since: epoch) {
                        let step = min(remaining, 0.01)
                        try? await Task.sleep(for: .milliseconds(Int(step * 1000)))
                        remaining -= step
                        played += step
                    }
                } else {
                    played += buffer.duration
                }
            }
        } catch {
            return AudioPlayback(playedSeconds: played, error: "\(error)")
        }
        return AudioPlayback(playedSeconds: played, interrupted: stopped(since: epoch))
    }

    func stop() {
        state.locked { state in
            state.stopEpoch += 1
            state.stops += 1
        }
    }

    private func stopped(since epoch: Int) -> Bool {
        state.locked { $0.stopEpoch != epoch }
    }
}
