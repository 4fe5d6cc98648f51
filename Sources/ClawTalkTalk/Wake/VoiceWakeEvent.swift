public import ClawTalkSpeech

/// What ``VoiceWakeController`` did, for logs, status and tests.
public enum VoiceWakeEvent: Sendable, Equatable {
    /// Stage 1 heard a trigger and the verifier (if any) decided; `accepted` tells which way.
    case hit(WakeHit, accepted: Bool)
    /// A trigger was rejected: ``WakeVerdict/Rejection`` in words, or `cooldown`/`busy` when the
    /// state machine ignored the hit.
    case rejected(trigger: String, reason: String)
    /// A trigger was accepted and the command capture started (`command`: heard so far).
    case accepted(trigger: String, command: String)
    /// The command capture ended with this command text ("" when nothing followed the trigger).
    case captured(trigger: String, command: String)
    /// The command was handed to the ``VoiceWakeController/CommandHook`` (Talk mode).
    case handedOver(trigger: String, command: String)
    /// The command went to delivery with this outcome.
    case sent(trigger: String, command: String, outcome: DeliveryReceipt.Outcome)
    /// The capture was dropped (suspend, disable, recognition error).
    case cancelled
    /// A new trigger list is in use.
    case triggersChanged([String])
    /// Something failed (engine, transcriber); one line.
    case failed(String)
}
