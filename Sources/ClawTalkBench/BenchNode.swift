import ClawTalkDevices
import ClawTalkSupport
import Synchronization

/// The node's audio path as `clawtalk run` composes it (capture engine → front end, playback
/// controller with the front end's render tap), on the loopback rig's devices, with a bench hook
/// that stamps every front-end frame on arrival.
final class BenchNode: Sendable {
    let capture: CaptureEngine
    let frontEnd: AudioFrontEnd
    let playback: PlaybackController
    /// Frame handler of the running bench probe (set and cleared by the probes).
    private let handler = Handler()

    /// The current frame handler, shared with the pump task.
    private final class Handler: Sendable {
        let body = Mutex<ClosureBox<@Sendable (FrontEndFrame, ContinuousClock.Instant) -> Void>?>(nil)
    }
    private let pump: Task<Void, Never>

    /// Starts capture from `source` in `blockMilliseconds` blocks and the front end (the node's
    /// default settings unless given); playback goes to `sink`.
    init(
        source: String, sink: String, blockMilliseconds: Int = 20, frontEnd settings: FrontEndSettings = .init()
    ) throws {
        capture = CaptureEngine(
            configuration: CaptureConfiguration(source: source, frameMilliseconds: blockMilliseconds),
            backend: PulseCaptureBackend(pacedReads: true))
        frontEnd = try AudioFrontEnd(settings: settings)
        playback = PlaybackController(
            sink: sink, settings: PlaybackSettings(streamName: "clawtalk bench node"), renderTap: frontEnd.renderTap)
        frontEnd.attach(playback)
        let frames = frontEnd.frames()
        let handler = handler
        pump = Task.detached(priority: .high) {
            for await frame in frames {
                let now = ContinuousClock.now
                handler.body.locked { $0 }?.call(frame, now)
            }
        }
        try frontEnd.start(on: capture)
        try capture.start()
    }

    /// Calls `body` with every front-end frame and its arrival time until ``unobserve()``.
    func observe(_ body: @escaping @Sendable (FrontEndFrame, ContinuousClock.Instant) -> Void) {
        let box = ClosureBox(body)
        handler.body.locked { $0 = box }
    }

    /// Stops calling the frame handler.
    func unobserve() {
        handler.body.locked { $0 = nil }
    }

    /// Stops capture, the front end and playback.
    func close() {
        unobserve()
        capture.stop()
        frontEnd.stop()
        playback.close()
        pump.cancel()
    }
}
