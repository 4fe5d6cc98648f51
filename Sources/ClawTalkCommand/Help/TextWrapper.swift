/// Wraps help text the way swift-argument-parser does: hard line breaks are kept, long lines
/// break at the last space that fits, and continuation lines are indented.
public enum TextWrapper {
    /// `text` wrapped to `width` columns, every non-empty line indented by `indent` spaces.
    public static func wrap(_ text: String, width: Int, indent: Int = 0) -> String {
        let columns = max(1, width - indent)
        let padding = String(repeating: " ", count: indent)
        var lines: [Substring] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = paragraph
            while true {
                if rest.count <= columns {
                    lines.append(rest)
                    break
                }
                // Break at the last space inside the first `columns` characters, else at the
                // first space after them (an overlong word overflows rather than being split).
                let chunk = rest.prefix(columns).dropFirst()
                guard let space = chunk.lastIndex(of: " ") ?? rest.dropFirst().firstIndex(of: " ") else {
                    lines.append(rest)
                    break
                }
                lines.append(rest[..<space])
                rest = rest[rest.index(after: space)...]
            }
        }
        return lines.map { $0.isEmpty ? "" : padding + $0 }.joined(separator: "\n")
    }
}
