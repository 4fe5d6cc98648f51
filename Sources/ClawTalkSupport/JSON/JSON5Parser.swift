/// Parser for JSON5 (https://spec.json5.org), written for clawtalk's config file.
///
/// Accepts everything JSON5 allows: `//` and `/* */` comments, unquoted identifier keys,
/// single-quoted strings, trailing commas, hex numbers, leading or trailing decimal points,
/// `+`/`-` signs, `Infinity` and `NaN`, strings continued across lines with a backslash, and the
/// `\x`, `\u`, `\0`, `\v` escapes. Stricter than JSON5 in two ways: a duplicate key is an error
/// (naming the key), and an escape that would leave a lone UTF-16 surrogate is an error (Swift
/// strings cannot hold one).
public enum JSON5Parser {
    /// Deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    /// Parses `text` as one JSON5 value.
    public static func parse(_ text: String) throws(JSON5Error) -> JSONValue {
        try parseDocument(text).value
    }

    /// Parses `text`, also recording where each object key was written.
    /// - Parameter emptyDocument: value returned for a text with only whitespace and comments;
    ///   nil makes such a text an error.
    public static func parseDocument(_ text: String, emptyDocument: JSONValue? = nil) throws(JSON5Error)
        -> JSON5Document
    {
        var scanner = JSON5Scanner(text)
        return try scanner.parseDocument(emptyDocument: emptyDocument)
    }
}
