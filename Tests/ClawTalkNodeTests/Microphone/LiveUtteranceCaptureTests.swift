import ClawTalkAudio
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

@testable import ClawTalkNode

/// The live capture without a sound server: frames from a stream like the front end's
/// subscription. Each sample reaches the transcriber once, and the forwarding of a capture ends
/// with it (before the fix a detached forwarder per capture kept its subscription for the
/// service's lifetime).
@Suite("Live utterance capture", .timeLimit(.minutes(1)))
struct LiveUtteranceCaptureTests {
    /// A source stream that records when its consumer lets go of it.
    final class Source: Sendable {
        let stream: AsyncStream<[Int16]>
        let continuation: AsyncStream<[Int16]>.Continuation
        private let released = Flag()

        /// Set once, read by the test.
        final class Flag: Sendable {
            let value = Atomic<Bool>(false)
        }

        init() {
            (stream, continuation) = AsyncStream.makeStream(of: [Int16].self)
            let released = released
            continuation.onTermination = { _ in released.value.store(true, ordering: .relaxed) }
        }

        var isReleased: Bool { released.value.load(ordering: .relaxed) }
    }

    static func frame(_ value: Int16) -> [Int16] { [Int16](repeating: value, count: 320) }

    static func capture(_ source: Source, preRoll: [Int16]) -> LiveUtteranceCapture {
        let frames = Microphone.forward(source.stream, state: 0) { count, samples in
            count += 1
            return .init(samples: samples, isSpeech: true, rms: 0.1)
        }
        return LiveUtteranceCapture(preRoll: preRoll, frames: frames)
    }

    @Test func finishReturnsThePreRollAndEachFrameOnce() async throws {
        let source = Source()
        let capture = Self.capture(source, preRoll: [7, 7, 7])
        for value in Int16(1)...5 { source.continuation.yield(Self.frame(value)) }
        let expected: [Int16] = [7, 7, 7] + (Int16(1)...5).flatMap { Self.frame($0) }
        _ = await eventually { await capture.snapshot().samples.count >= expected.count }
        let audio = await capture.finish()
        #expect(audio.samples == expected)
        source.continuation.yield(Self.frame(9))
        #expect(await capture.finish().samples == expected, "nothing after the finish")
    }

    /// The subscription ends with the capture, whenever the end comes: 200 captures each (a busy
    /// machine may take minutes), since the leak this guards against (a forwarder left running
    /// when the capture ended while it was between frames) showed only a few times in a few
    /// hundred.
    @Test(.timeLimit(.minutes(10)), arguments: [false, true])
    func theForwardingEndsWithTheCapture(cancelled: Bool) async throws {
        for attempt in 1...200 {
            let source = Source()
            let capture = Self.capture(source, preRoll: [])
            source.continuation.yield(Self.frame(1))
            if cancelled { await capture.cancel() } else { _ = await capture.finish() }
            _ = await eventually {
                if source.isReleased { return true }
                source.continuation.yield(Self.frame(2))
                return false
            }
            try #require(source.isReleased, "capture \(attempt): the subscription of an ended capture is let go")
        }
    }
}
