/// Stops whatever the node is saying. Starting push-to-talk stops TTS playback without recording
/// an interruption (talk.md §1); barge-in stops it and records one.
public protocol SpeechStopping: Sendable {
    /// Stops playback and pending synthesis; returns the seconds played of the interrupted reply,
    /// or nil when nothing was playing.
    func stopSpeaking(recordInterruption: Bool) async -> Double?
}
