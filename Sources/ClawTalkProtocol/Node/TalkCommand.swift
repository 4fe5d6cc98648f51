import Foundation

/// The `talk.ptt.*` node commands clawtalk declares (talk.md §2.1).
public enum TalkCommand: String, Sendable, Hashable, Codable, CaseIterable {
    /// Begin a push-to-talk capture.
    case start = "talk.ptt.start"
    /// Finalize the capture and deliver the transcript.
    case stop = "talk.ptt.stop"
    /// Discard the capture.
    case cancel = "talk.ptt.cancel"
    /// Capture one utterance with automatic end; the result is sent when it ends.
    case once = "talk.ptt.once"
}

/// `status` of a PTT result (talk.md §2.4). clawtalk never emits `not_queued` (it has
/// no durable outbox), so that value is deliberately absent.
public enum TalkPTTStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Non-empty transcript handed to a connected delivery route.
    case queued
    /// Capture ended with no transcript.
    case empty
    /// Transcript captured but no delivery route connected (local PTT only).
    case offline
    /// stop/cancel without an active capture (a fresh `captureId` is returned).
    case idle
    /// Cancelled or superseded.
    case cancelled
    /// `once` while a PTT capture is active.
    case busy
}

/// `talk.ptt.start` result payload `{captureId}`.
public struct TalkPTTStartResult: Sendable, Hashable, Codable {
    /// Lowercase UUID v4 generated at start.
    public var captureId: String

    /// A start receipt.
    public init(captureId: String) {
        self.captureId = captureId
    }
}

/// `talk.ptt.stop|cancel|once` result payload `{captureId, transcript, status}`.
/// `transcript` is always on the wire: the trimmed text or `null` (the Gateway derives the
/// `talk.event` from these fields).
public struct TalkPTTResult: Sendable, Hashable, Codable {
    /// The capture's id (or a fresh one for `idle`/`busy`).
    public var captureId: String
    /// Trimmed transcript; nil is encoded as `null`.
    public var transcript: String?
    /// Outcome.
    public var status: TalkPTTStatus

    /// A result; `transcript` is trimmed and an empty one becomes nil.
    public init(captureId: String, transcript: String?, status: TalkPTTStatus) {
        self.captureId = captureId
        let trimmed = transcript?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.transcript = trimmed?.isEmpty == false ? trimmed : nil
        self.status = status
    }

    /// Encodes all three keys, `transcript` as `null` when nil.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(captureId, forKey: .captureId)
        try container.encode(transcript, forKey: .transcript)
        try container.encode(status, forKey: .status)
    }
}
