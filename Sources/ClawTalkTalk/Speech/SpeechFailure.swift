import ClawTalkGateway
import ClawTalkProtocol

/// Why a gateway synthesis request produced no playable audio, and whether the fallback chain
/// may continue (talk.md §7.1, §7.5).
struct SpeechFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line, no secrets.
    var reason: String
    /// `details.fallbackEligible`, or what it defaults to: true for transport errors, timeouts,
    /// unavailable methods, `UNAVAILABLE` without a reason and unplayable clips.
    var fallbackEligible: Bool

    var description: String { reason }

    /// Classifies an error of a `talk.speak` / `tts.speak` call or of decoding its clip.
    static func classify(_ error: any Error, method: String) -> SpeechFailure {
        guard let gatewayError = error as? GatewayError else {
            // Malformed results and undecodable clips: the audio is unplayable.
            return SpeechFailure(reason: "\(method): unplayable clip: \(error)", fallbackEligible: true)
        }
        guard case .response(_, let shape) = gatewayError else {
            return SpeechFailure(reason: "\(gatewayError)", fallbackEligible: true)
        }
        guard shape.gatewayCode == .unavailable else {
            return SpeechFailure(reason: "\(method) failed: \(shape.code): \(shape.message)", fallbackEligible: false)
        }
        let reason = shape.details?["reason"]?.nonEmptyStringValue
        let eligible: Bool
        if let flag = shape.details?["fallbackEligible"]?.boolValue {
            eligible = flag
        } else if let reason {
            eligible = TalkSpeakFailureReason(rawValue: reason)?.isFallbackEligible ?? false
        } else {
            eligible = true
        }
        return SpeechFailure(reason: "\(method) unavailable: \(reason ?? shape.message)", fallbackEligible: eligible)
    }
}
