import ClawTalkCommand
import ClawTalkGateway
import ClawTalkSpeech
import Foundation

/// A folder of labelled wake-word recordings read through its `MANIFEST.txt` (benchmarks.md
/// §4.1): one `./<label>/<file>.wav` per line; the label is the folder name. Files not listed
/// are ignored; lines starting with `#` and blank lines are skipped.
struct WakeDataset: Sendable {
    /// One listed recording.
    struct Entry: Sendable, Hashable {
        /// Path relative to the dataset folder, e.g. `computer/x.wav`.
        var path: String
        /// The folder the file is in, e.g. `computer`.
        var label: String
    }

    /// The dataset folder.
    var directory: URL
    /// Listed recordings, in manifest order.
    var entries: [Entry]
    /// SHA-256 of the manifest, lower-case hex.
    var manifestSHA256: String

    /// The manifest's file name.
    static let manifestName = "MANIFEST.txt"

    /// Reads `directory/MANIFEST.txt`; nil when the folder or its manifest is absent.
    static func load(directory: URL) throws -> WakeDataset? {
        let manifest = directory.appendingPathComponent(manifestName)
        guard let data = FileManager.default.contents(atPath: manifest.path) else { return nil }
        var entries: [Entry] = []
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            var path = line.trimmingCharacters(in: .whitespaces)
            guard !path.isEmpty, !path.hasPrefix("#") else { continue }
            if path.hasPrefix("./") { path.removeFirst(2) }
            let parts = path.split(separator: "/")
            guard parts.count >= 2, !path.contains("..") else {
                throw CLIError.validationFailed("\(manifest.path): '\(line)' is not ./<label>/<file>")
            }
            entries.append(Entry(path: path, label: String(parts[parts.count - 2])))
        }
        let digest = SHA256.hash(Array(data)).map { String(format: "%02x", $0) }.joined()
        return WakeDataset(directory: directory, entries: entries, manifestSHA256: digest)
    }

    /// The labels, sorted.
    var labels: [String] { Array(Set(entries.map(\.label))).sorted() }

    /// The label whose recordings are positives for `trigger`: the folder named like the trigger
    /// (compared by ``TriggerText/key(_:)``), or like the trigger without a leading `hey`, `ok`
    /// or `okay` (the Picovoice recordings say "jarvis", not "hey jarvis"); nil if none.
    func positiveLabel(for trigger: String) -> String? {
        Self.positiveLabel(for: trigger, labels: labels)
    }

    /// ``positiveLabel(for:)`` over a label list.
    static func positiveLabel(for trigger: String, labels: [String]) -> String? {
        var words = TriggerText.words(trigger)
        let full = words.joined()
        if words.count > 1, ["hey", "ok", "okay"].contains(words[0]) { words.removeFirst() }
        let short = words.joined()
        return labels.first { TriggerText.key($0) == full } ?? labels.first { TriggerText.key($0) == short }
    }

    /// Keeps at most `limit` files per label (manifest order).
    func limited(to limit: Int?) -> WakeDataset {
        guard let limit else { return self }
        var counts: [String: Int] = [:]
        var copy = self
        copy.entries = entries.filter { entry in
            counts[entry.label, default: 0] += 1
            return counts[entry.label]! <= limit
        }
        return copy
    }
}
