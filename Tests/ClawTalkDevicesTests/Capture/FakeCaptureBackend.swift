import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import Foundation
import Synchronization

/// A capture backend with scriptable devices, for engine tests without a sound server.
///
/// Every frame a fake stream delivers is `[tag, n, +A, −A, +A, …]`: `tag` names the device it came
/// from, `n` counts that stream's frames (so loss or duplication inside a stream run shows), and
/// the rest is a square wave of amplitude ``amplitude`` (RMS and peak ≈ 0.25 full scale).
final class FakeCaptureBackend: CaptureBackend {
    static let amplitude: Int16 = 8192

    struct Attempt {
        var source: String?
        var at: ContinuousClock.Instant
        var succeeded: Bool
    }

    struct State {
        /// Listed sources and the tag their frames carry.
        var sources: [String: Int16] = [:]
        /// The default source's tag; nil = the default source cannot be opened or read.
        var defaultTag: Int16? = 0
        /// When true, a stream on a source removed from `sources` keeps reading (as if the server
        /// had moved it elsewhere) instead of failing.
        var removedSourcesKeepReading = false
        /// When true, every read fails at once (a device that opens but does not work).
        var readsFail = false
        /// This many of the next reads fail (a stream killed once).
        var failingReads = 0
        /// Pause per read, in microseconds (20 000 = real time).
        var readDelayMicroseconds: UInt32 = 5_000
        /// What each stream reports as captured but not yet read (a reader that woke late).
        var backlogNanoseconds: UInt64 = 0
        var attempts: [Attempt] = []
        var openStreams = 0
        /// The size (in samples) of every read asked of a stream, oldest first (at most 10 000).
        var readSizes: [Int] = []
    }

    let state: Mutex<State>

    init(_ state: State = State()) {
        self.state = Mutex(state)
    }

    func update(_ body: (inout State) -> Void) {
        state.locked { body(&$0) }
    }

    var attempts: [Attempt] { state.locked { $0.attempts } }
    var openStreams: Int { state.locked { $0.openStreams } }

    func openStream(
        source: String?, format: AudioFormat, frameMilliseconds: Int, shouldStop: @escaping @Sendable () -> Bool
    ) throws -> any CaptureInputStream {
        try state.locked { state in
            let tag = source.map { state.sources[$0] } ?? state.defaultTag
            state.attempts.append(Attempt(source: source, at: .now, succeeded: tag != nil))
            guard let tag else {
                throw AudioDeviceError.open(device: source, message: "No such entity")
            }
            state.openStreams += 1
            return FakeCaptureStream(backend: self, source: source, tag: tag)
        }
    }

    func devices() throws -> [AudioDevice] {
        state.locked { state in
            state.sources.keys.sorted().map {
                AudioDevice(kind: .source, name: $0, description: "Mic \($0)", sampleRate: 16000, channels: 1)
            } + [AudioDevice(kind: .sink, name: "speaker", description: "Speaker", sampleRate: 16000, channels: 1)]
        }
    }

    /// Whether a stream opened on `source` may still read, and its pause.
    fileprivate func readable(_ source: String?) -> (ok: Bool, delay: UInt32) {
        state.locked { state in
            if state.failingReads > 0 {
                state.failingReads -= 1
                return (false, 0)
            }
            let present =
                if let source {
                    state.sources[source] != nil || state.removedSourcesKeepReading
                } else {
                    state.defaultTag != nil
                }
            return (present && !state.readsFail, state.readsFail ? 0 : state.readDelayMicroseconds)
        }
    }

    fileprivate var backlogNanoseconds: UInt64 { state.locked { $0.backlogNanoseconds } }

    /// The sizes of the reads asked so far (see ``State/readSizes``).
    var readSizes: [Int] { state.locked { $0.readSizes } }

    fileprivate func noteRead(samples: Int) {
        state.locked { if $0.readSizes.count < 10_000 { $0.readSizes.append(samples) } }
    }

    fileprivate func closed() {
        state.locked { $0.openStreams -= 1 }
    }
}

/// One fake stream; used by the engine's capture thread only.
final class FakeCaptureStream: CaptureInputStream {
    private let backend: FakeCaptureBackend
    private let source: String?
    private let tag: Int16
    private var count: Int16 = 0
    private var isClosed = false

    fileprivate init(backend: FakeCaptureBackend, source: String?, tag: Int16) {
        self.backend = backend
        self.source = source
        self.tag = tag
    }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws {
        backend.noteRead(samples: buffer.count)
        let (ok, delay) = backend.readable(source)
        usleep(delay)
        guard ok, !isClosed else { throw AudioDeviceError.io("Entity killed") }
        for index in buffer.indices {
            buffer[index] = index % 2 == 0 ? FakeCaptureBackend.amplitude : -FakeCaptureBackend.amplitude
        }
        buffer[0] = tag
        buffer[1] = count
        count &+= 1
    }

    var backlogNanoseconds: UInt64 { backend.backlogNanoseconds }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        backend.closed()
    }
}

/// Collects a frame stream on a task.
final class FrameCollector: Sendable {
    private final class Storage: Sendable {
        let frames = Mutex<[CapturedFrame]>([])
        let finished = Atomic<Bool>(false)
    }

    private let storage = Storage()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<CapturedFrame>) {
        let storage = self.storage
        task = Task {
            for await frame in stream { storage.frames.locked { $0.append(frame) } }
            storage.finished.store(true, ordering: .relaxed)
        }
    }

    var frames: [CapturedFrame] { storage.frames.locked { $0 } }
    var count: Int { storage.frames.locked { $0.count } }
    var isFinished: Bool { storage.finished.load(ordering: .relaxed) }

    /// Waits until the stream has finished (after the engine stopped).
    func waitUntilFinished() async {
        await task.value
    }
}
