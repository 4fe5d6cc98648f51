public import Foundation

/// `connect.challenge {nonce, ts?}`, the Gateway's first frame (protocol.md §7.1).
public struct ConnectChallenge: Sendable, Hashable, Encodable {
    /// The nonce, trimmed once (JavaScript `trim`); used verbatim in `device.nonce` and the
    /// signed payload.
    public var nonce: String
    /// Gateway clock in milliseconds, only when sent as an integer.
    public var ts: Int64?

    /// A challenge with the given values (stored as given).
    public init(nonce: String, ts: Int64?) {
        self.nonce = nonce
        self.ts = ts
    }

    /// Reads the event payload: trims the nonce and rejects an empty one; `ts` counts only when
    /// it is an integer (a string or fractional value reads as absent).
    public init(json: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "connect.challenge")
        let nonce = try reader.requiredString("nonce").jsTrimmed()
        guard !nonce.isEmpty else { throw .invalidPayload("connect.challenge: empty nonce") }
        self.init(nonce: nonce, ts: reader.int64("ts"))
    }

    /// `device.signedAt`: the challenge's `ts`, else local wall-clock milliseconds of `now`.
    public func signedAtMs(now: Date) -> Int64 {
        ts ?? Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
