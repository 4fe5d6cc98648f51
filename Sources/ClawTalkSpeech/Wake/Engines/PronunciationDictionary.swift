import ClawTalkSupport
import Foundation
import Synchronization

/// A CMU-style pronunciation dictionary (`word PH ON ES` per line, alternates as `word(2) …`),
/// such as Debian's `/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict`, held in memory
/// for lookups (first pronunciation of each word, stress digits removed).
///
/// Loading parses about 135 000 lines; ``shared(path:)`` keeps one parsed copy per file for
/// the life of the process. Immutable, so `Sendable`.
public final class PronunciationDictionary: Sendable {
    /// The file it was read from.
    public let path: String
    /// Word → phones joined by single spaces.
    private let entries: [String: String]

    /// Debian's en-us dictionary (package `pocketsphinx-en-us`).
    public static let debianEnglishPath = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"

    private static let cache = Mutex<[String: PronunciationDictionary]>([:])

    /// Reads and parses `path`.
    public init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SpeechError.fileNotFound(path: path)
        }
        self.path = path
        entries = Self.parse(data)
    }

    /// The dictionary at `path`, parsed once per process.
    public static func shared(path: String = debianEnglishPath) throws -> PronunciationDictionary {
        if let cached = cache.locked({ $0[path] }) { return cached }
        let dictionary = try PronunciationDictionary(contentsOf: path)
        cache.locked { $0[path] = dictionary }
        return dictionary
    }

    /// Number of words.
    public var count: Int { entries.count }

    /// The first pronunciation of `word` (lower case), or nil.
    public func phones(for word: String) -> [String]? {
        entries[word].map { $0.split(separator: " ").map(String.init) }
    }

    /// Whether `word` is in the dictionary.
    public func contains(_ word: String) -> Bool {
        entries[word] != nil
    }

    /// Parses the lines; alternates (`word(2)`) are skipped, stress digits removed.
    private static func parse(_ data: Data) -> [String: String] {
        var entries: [String: String] = [:]
        entries.reserveCapacity(140_000)
        let text = String(decoding: data, as: UTF8.self)
        text.enumerateLines { line, _ in
            guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return }
            let word = line[..<space]
            guard !word.isEmpty, !word.contains("("), entries[String(word)] == nil else { return }
            let phones = line[space...].split(whereSeparator: { $0 == " " || $0 == "\t" })
                .map { $0.filter { !$0.isNumber } }
            guard !phones.isEmpty else { return }
            entries[String(word)] = phones.joined(separator: " ")
        }
        return entries
    }
}
