import ClawTalkProtocol
import Foundation

/// Finds the reply to a turn in a `chat.history` result (talk.md §4.1; schema unverified
/// upstream, read leniently): `{messages:[{role, content, timestamp}]}` or a bare array.
enum ChatHistoryReply {
    /// The newest non-empty assistant message created at or after `sentAtMs`; when the
    /// messages carry no timestamps, the newest assistant message after the last user message
    /// equal to `prompt`. Nil when there is none yet.
    static func reply(in payload: WireJSON, sentAtMs: Int64, prompt: String) -> String? {
        let messages = (payload["messages"]?.arrayValue ?? payload.arrayValue ?? []).compactMap(Entry.init(json:))
        if let hit = messages.last(where: { $0.role == "assistant" && ($0.timestampMs ?? .min) >= sentAtMs }) {
            return hit.text
        }
        let trimmedPrompt = prompt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard
            let asked = messages.lastIndex(where: {
                $0.role == "user" && $0.timestampMs == nil
                    && $0.text.trimmingCharacters(in: .whitespacesAndNewlines) == trimmedPrompt
            })
        else { return nil }
        return messages[(asked + 1)...].last { $0.role == "assistant" && $0.timestampMs == nil }?.text
    }

    /// One message: role, text, creation time in milliseconds when given.
    private struct Entry {
        let role: String
        let text: String
        let timestampMs: Int64?

        init?(json: WireJSON) {
            guard let message = ChatMessage(json: json) else { return nil }
            let text = message.text
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || message.role == "user" else {
                return nil
            }
            role = message.role
            self.text = text
            let raw = ["timestamp", "createdAt", "createdAtMs", "ts"].lazy.compactMap { json[$0] }.first
            if let value = raw?.doubleValue {
                // Seconds (before the year 5138 in milliseconds) are scaled to milliseconds.
                timestampMs = value < 100_000_000_000 ? Int64(value * 1000) : Int64(value)
            } else {
                timestampMs = nil
            }
        }
    }
}

/// Session keys as the gateway may echo them: as sent (`main`) or canonical (`agent:main:main`).
enum SessionKeys {
    /// True when `a` and `b` name the same session: equal ignoring case, or one is the other's
    /// last `:`-separated part(s).
    static func match(_ a: String, _ b: String) -> Bool {
        let left = a.lowercased()
        let right = b.lowercased()
        return left == right || left.hasSuffix(":" + right) || right.hasSuffix(":" + left)
    }
}
