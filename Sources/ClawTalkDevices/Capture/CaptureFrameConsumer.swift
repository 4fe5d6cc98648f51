/// The one synchronous consumer of a ``CaptureEngine``'s frames, run on its drain thread
/// (``CaptureEngine/attach(_:)``): the node's ``AudioFrontEnd``. It saves a task hop per frame,
/// and it lets the engine batch frames while nothing is happening.
///
/// Rules: ``consume(_:)`` runs on the drain thread, one frame at a time, in order; it must not
/// block or await (the ring holds one second).
public protocol CaptureFrameConsumer: AnyObject, Sendable {
    /// Takes one frame. Returns nil to get the next frame as soon as it is captured; returns an
    /// RMS level (full scale 1.0) when idle: frames then come in blocks of one
    /// ``CaptureConfiguration/idleDrainInterval``, until a frame of the block answers nil (the
    /// level is what the consumer itself compares against; the engine only needs "idle").
    func consume(_ frame: CapturedFrame) -> Double?
    /// The engine stopped, or the consumer was detached: no more frames come.
    func captureEnded()
}
