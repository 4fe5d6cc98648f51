import ClawTalkGateway
import ClawTalkSupport
import Foundation

/// The outbox file of one gateway: `gateway-<key>.outbox` in the state directory (so
/// `gateways forget` deletes it with the gateway's other files), JSON, mode 0600, replaced
/// atomically; removed when empty.
struct TranscriptOutbox: Sendable {
    /// File name suffix after the gateway stem.
    static let suffix = "outbox"

    /// The file's JSON shape.
    private struct File: Codable {
        var version = 1
        var transcripts: [QueuedTranscript]
    }

    let store: GatewayStore
    let gatewayKey: String

    /// The file name in the state directory.
    func fileName() throws -> String {
        try store.dataFileName(for: gatewayKey, suffix: Self.suffix)
    }

    /// The queued transcripts, oldest first (empty when there is no file).
    func load() throws -> [QueuedTranscript] {
        guard let data = try store.directory.readSecretFile(fileName()) else { return [] }
        return try JSONDecoder().decode(File.self, from: data).transcripts
    }

    /// Replaces the file with `transcripts` (deletes it when empty).
    func save(_ transcripts: [QueuedTranscript]) throws {
        let name = try fileName()
        guard !transcripts.isEmpty else {
            try store.directory.removeFile(name)
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(File(transcripts: transcripts))
        data.append(UInt8(ascii: "\n"))
        try store.directory.writeSecretFile(name, data)
    }
}
