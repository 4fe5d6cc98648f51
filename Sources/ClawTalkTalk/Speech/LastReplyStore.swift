public import ClawTalkSupport
import Foundation

/// The last assistant reply spoken, for `clawtalk say --last`: `last-reply.json` in the state
/// directory (mode 0600, replaced atomically). The text is the reply's speakable text as it
/// finally read (directive, code and markup removed; a draft the reply discarded while it
/// streamed is not in it, talk.md §4.3).
public struct LastReplyStore: Sendable {
    /// The file name in the state directory.
    public static let fileName = "last-reply.json"

    /// One saved reply.
    public struct Reply: Sendable, Equatable, Codable {
        /// The speakable text.
        public var text: String
        /// When it was saved, wall-clock milliseconds.
        public var savedAtMs: Int64

        /// A reply with the given values.
        public init(text: String, savedAtMs: Int64) {
            self.text = text
            self.savedAtMs = savedAtMs
        }
    }

    /// The state directory.
    public let directory: StateDirectory

    /// A store in `directory`.
    public init(directory: StateDirectory) {
        self.directory = directory
    }

    /// Replaces the saved reply.
    public func save(_ reply: Reply) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try directory.writeSecretFile(Self.fileName, try encoder.encode(reply))
    }

    /// The saved reply, nil when none was saved yet.
    public func load() throws -> Reply? {
        guard let data = try directory.readSecretFile(Self.fileName) else { return nil }
        return try JSONDecoder().decode(Reply.self, from: data)
    }
}
