/// Decides which field names hold sensitive data (transcripts, credentials, audio).
///
/// A name is sensitive when it equals one of ``sensitiveNames`` ignoring case, or ends with one
/// at a word boundary: `authToken`, `auth_token` and `AUTH-TOKEN` match `token`, but `context`
/// does not match `text`.
public enum LogRedaction {
    /// Field names (and name suffixes) whose values are replaced by `<redacted len=N>`.
    public static let sensitiveNames = [
        "transcript", "text", "utterance", "token", "password", "signature", "bootstrapToken", "deviceToken",
        "audioBase64",
    ]

    /// Whether values of field `name` must be redacted.
    public static func isSensitive(_ name: String) -> Bool {
        let lower = name.lowercased()
        for candidate in sensitiveNames {
            let suffix = candidate.lowercased()
            guard lower.hasSuffix(suffix) else { continue }
            if lower.count == suffix.count { return true }
            let scalars = Array(name.unicodeScalars)
            let boundary = scalars.count - suffix.unicodeScalars.count
            guard boundary > 0, boundary < scalars.count else { continue }
            let first = scalars[boundary]
            let before = scalars[boundary - 1]
            if first.properties.isUppercase || before == "_" || before == "-" || before == "." {
                return true
            }
        }
        return false
    }

    /// `fields` with every sensitive value replaced by its length.
    public static func redact(_ fields: [String: LogValue]) -> [String: LogValue] {
        var result = fields
        for (name, value) in fields where isSensitive(name) {
            result[name] = value.redacted
        }
        return result
    }
}
