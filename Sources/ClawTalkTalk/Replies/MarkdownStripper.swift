/// Removes Markdown markup from one speakable segment (talk.md §4.3): headings, quote
/// and list markers at a line start, rules and table separators, link and image syntax (the
/// text stays), inline code backticks and emphasis marks. Whitespace is collapsed. Fenced code
/// blocks never get here (``SpeakableTextBuffer`` skips them).
enum MarkdownStripper {
    /// `segment` without markup; `atLineStart` enables the line-start rules.
    static func strip(_ segment: String, atLineStart: Bool) -> String {
        var chars = Array(segment)
        if atLineStart { chars = stripLineStart(chars) }
        if isRuleOrSeparator(chars) { return "" }
        chars = stripLinks(chars)
        chars = stripInline(chars)
        return collapse(chars)
    }

    /// Leading whitespace, `>` quotes, `#` headings, `-`/`*`/`+`/`1.` list markers.
    private static func stripLineStart(_ input: [Character]) -> [Character] {
        var chars = ArraySlice(input.drop(while: \.isWhitespace))
        while chars.first == ">" { chars = chars.dropFirst().drop(while: \.isWhitespace) }
        let hashes = chars.prefix(while: { $0 == "#" }).count
        if (1...6).contains(hashes), chars.dropFirst(hashes).first?.isWhitespace ?? true {
            chars = chars.dropFirst(hashes).drop(while: \.isWhitespace)
        }
        if let first = chars.first, "-*+".contains(first), chars.dropFirst().first?.isWhitespace == true {
            chars = chars.dropFirst().drop(while: \.isWhitespace)
        } else {
            let digits = chars.prefix(while: \.isNumber).count
            let after = chars.dropFirst(digits)
            if (1...3).contains(digits), let mark = after.first, mark == "." || mark == ")",
                after.dropFirst().first?.isWhitespace ?? true
            {
                chars = after.dropFirst().drop(while: \.isWhitespace)
            }
        }
        return Array(chars)
    }

    /// A thematic break (`---`, `***`, `___`) or a table separator row (`|---|:--:|`).
    private static func isRuleOrSeparator(_ chars: [Character]) -> Bool {
        let marks = chars.filter { !$0.isWhitespace }
        guard marks.count >= 3 else { return false }
        if marks.allSatisfy({ "-|:".contains($0) }), marks.contains("-") { return true }
        return marks.allSatisfy { $0 == "*" } || marks.allSatisfy { $0 == "_" }
    }

    /// `![alt](url)` → `alt`, `[text](url)` → `text`, `<https://…>` → `https://…`.
    private static func stripLinks(_ chars: [Character]) -> [Character] {
        var output: [Character] = []
        var index = 0
        while index < chars.count {
            let isImage = chars[index] == "!" && index + 1 < chars.count && chars[index + 1] == "["
            let open = isImage ? index + 1 : index
            if chars[open] == "[", let close = chars[(open + 1)...].firstIndex(of: "]"), close + 1 < chars.count,
                chars[close + 1] == "(", let end = chars[(close + 2)...].firstIndex(of: ")")
            {
                output.append(contentsOf: chars[(open + 1)..<close])
                index = end + 1
                continue
            }
            if chars[index] == "<", let end = chars[(index + 1)...].firstIndex(of: ">"),
                String(chars[(index + 1)..<end]).hasPrefix("http")
            {
                output.append(contentsOf: chars[(index + 1)..<end])
                index = end + 1
                continue
            }
            output.append(chars[index])
            index += 1
        }
        return output
    }

    /// Backticks, `*`, `~~`, table pipes, and `_` that is not inside a word.
    private static func stripInline(_ chars: [Character]) -> [Character] {
        var output: [Character] = []
        for (index, char) in chars.enumerated() {
            switch char {
            case "`", "*":
                continue
            case "|":
                output.append(" ")
            case "~" where index + 1 < chars.count && chars[index + 1] == "~":
                continue
            case "~" where index > 0 && chars[index - 1] == "~":
                continue
            case "_":
                let before = index > 0 ? chars[index - 1] : " "
                let after = index + 1 < chars.count ? chars[index + 1] : " "
                if before.isLetter || before.isNumber, after.isLetter || after.isNumber {
                    output.append(char)
                }
            default:
                output.append(char)
            }
        }
        return output
    }

    /// Runs of whitespace as one space, trimmed.
    private static func collapse(_ chars: [Character]) -> String {
        var output = ""
        var pendingSpace = false
        for char in chars {
            if char.isWhitespace {
                pendingSpace = !output.isEmpty
            } else {
                if pendingSpace { output.append(" ") }
                pendingSpace = false
                output.append(char)
            }
        }
        return output
    }
}
