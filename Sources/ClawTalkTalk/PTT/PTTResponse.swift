public import ClawTalkProtocol

/// The answer to one push-to-talk command: what a `talk.ptt.*` invoke returns (talk.md
/// §2.3) and what the local control socket prints.
public enum PTTResponse: Sendable, Hashable {
    /// `start`: the capture's id (`{captureId}`).
    case started(captureId: String)
    /// `stop`, `cancel`, `once`: `{captureId, transcript, status}`.
    case finished(TalkPTTResult)
    /// The command failed (talk.md §2.7).
    case failed(PTTFailure)

    /// A finished result.
    static func result(_ captureId: String, _ transcript: String?, _ status: TalkPTTStatus) -> PTTResponse {
        .finished(TalkPTTResult(captureId: captureId, transcript: transcript, status: status))
    }

    /// The capture id of a successful answer.
    public var captureId: String? {
        switch self {
        case .started(let captureId): captureId
        case .finished(let result): result.captureId
        case .failed: nil
        }
    }

    /// The invoke result payload as JSON text: `{"captureId":…}` for start, all three keys
    /// (`transcript` as `null` when there is none) otherwise.
    /// - Throws: the failure's ``NodeError``.
    public func payloadJSON() throws(NodeError) -> String {
        switch self {
        case .started(let captureId): try Self.encode(TalkPTTStartResult(captureId: captureId))
        case .finished(let result): try Self.encode(result)
        case .failed(let failure): throw failure.nodeError
        }
    }

    private static func encode(_ value: some Encodable) throws(NodeError) -> String {
        do {
            return try WireJSON(encoding: value).encodedString()
        } catch {
            throw NodeError(.unavailable, message: "UNAVAILABLE: cannot encode the result: \(error)")
        }
    }
}
