internal import CCrypto
public import Foundation

/// `Models/MANIFEST`: one line per model file with its source package, licence and SHA-256.
///
/// Format: tab-separated `path  source  licence  sha256`; `#` starts a comment line. Paths are
/// relative to the models directory. ``verify()`` re-hashes every listed file, so a model that was
/// swapped, truncated or fetched from the wrong place is caught before it is loaded.
public struct ModelManifest: Sendable, Equatable {
    /// One listed file.
    public struct Entry: Sendable, Equatable {
        /// Path relative to the models directory.
        public var path: String
        /// Where the file came from (package and version).
        public var source: String
        /// Licence of the file.
        public var licence: String
        /// Lowercase hex SHA-256 of the file's bytes.
        public var sha256: String
    }

    /// The outcome of checking one entry.
    public enum Check: Sendable, Equatable {
        /// The file exists and its hash matches.
        case ok(path: String)
        /// The file is listed but absent.
        case missing(path: String)
        /// The file's hash differs from the manifest.
        case mismatch(path: String, expected: String, actual: String)
    }

    /// The models directory the manifest describes.
    public var directory: URL
    /// Listed files, in manifest order.
    public var entries: [Entry]

    /// Reads `MANIFEST` in `directory`.
    public init(directory: URL) throws {
        let url = directory.appendingPathComponent("MANIFEST")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw SpeechError.fileNotFound(path: url.path)
        }
        self.directory = directory
        self.entries = try Self.parse(text, file: url.path)
    }

    /// Parses manifest text; `file` names the source in errors.
    public static func parse(_ text: String, file: String) throws -> [Entry] {
        var entries: [Entry] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = raw.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let hash = fields.last?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard fields.count == 4, hash.count == 64, hash.allSatisfy(\.isHexDigit) else {
                throw SpeechError.manifest(
                    path: file, message: "line \(index + 1): expected 4 tab-separated fields ending in a SHA-256")
            }
            entries.append(Entry(path: fields[0], source: fields[1], licence: fields[2], sha256: hash))
        }
        return entries
    }

    /// Hashes every listed file and reports each result, in manifest order.
    public func verify() -> [Check] {
        entries.map { entry in
            let url = directory.appendingPathComponent(entry.path)
            guard let data = try? Data(contentsOf: url) else { return .missing(path: entry.path) }
            let actual = Self.sha256Hex(data)
            return actual == entry.sha256
                ? .ok(path: entry.path) : .mismatch(path: entry.path, expected: entry.sha256, actual: actual)
        }
    }

    /// Lowercase hex SHA-256 of `data`.
    static func sha256Hex(_ data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        let rc = data.withUnsafeBytes { ccrypto_sha256($0.baseAddress, $0.count, &digest) }
        precondition(rc == 0, "SHA-256 failed: libcrypto could not allocate a digest context")
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}
