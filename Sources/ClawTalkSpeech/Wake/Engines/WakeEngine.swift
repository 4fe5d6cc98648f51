/// A stage-1 wake-word spotter: fed 16 kHz mono audio in any chunk size, it reports the
/// triggers it hears.
///
/// Engines are stateful streams and not thread-safe: one engine belongs to one audio stream and
/// one task (the wake consumer, never the real-time audio thread).
public protocol WakeEngine: AnyObject {
    /// Engine name for logs and reports (`microwakeword`, `pocketsphinx`, …).
    var name: String { get }
    /// The triggers the engine currently listens for, as configured.
    var triggers: [String] { get }
    /// Replaces the trigger list while running (Gateway `voicewake.changed`), without restarting
    /// the audio stream; timestamps continue.
    func setTriggers(_ triggers: [String]) throws
    /// Feeds samples and returns the hits they complete, in order.
    func process(_ samples: UnsafeBufferPointer<Int16>) throws -> [WakeHit]
    /// Ends the stream (file mode): returns hits that need the end of input to be decided.
    func finish() throws -> [WakeHit]
    /// Starts over: forgets buffered audio and restarts timestamps from zero.
    func reset() throws
}

extension WakeEngine {
    /// Feeds an array of samples.
    public func process(_ samples: [Int16]) throws -> [WakeHit] {
        try samples.withUnsafeBufferPointer { try process($0) }
    }
}
