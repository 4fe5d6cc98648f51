import Foundation

extension String {
    /// Trims Foundation whitespace and newlines.
    func trimmingWhitespace() -> String {
        trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// JavaScript `String.prototype.trim`: strips ECMAScript WhiteSpace and LineTerminator
    /// scalars, which is what the Gateway applies to nonces and transcripts.
    func jsTrimmed() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isJavaScriptWhitespace }),
            let last = scalars.lastIndex(where: { !$0.isJavaScriptWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    /// The longest prefix of at most `limit` UTF-16 code units that does not split a
    /// surrogate pair (a scalar outside the BMP is kept whole or dropped whole).
    func truncatedToUTF16(_ limit: Int) -> String {
        guard utf16.count > limit else { return self }
        var units = 0
        var end = unicodeScalars.startIndex
        for index in unicodeScalars.indices {
            let width = unicodeScalars[index].utf16.count
            if units + width > limit { break }
            units += width
            end = unicodeScalars.index(after: index)
        }
        return String(unicodeScalars[..<end])
    }

    /// At most `limit` characters, for echoing server- or user-supplied names in messages.
    func clipped(_ limit: Int) -> String {
        count > limit ? String(prefix(limit)) + "…" : self
    }
}

extension Unicode.Scalar {
    /// ECMAScript WhiteSpace and LineTerminator: what `String.prototype.trim` removes.
    var isJavaScriptWhitespace: Bool {
        switch value {
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
            0xFEFF:
            true
        default:
            false
        }
    }
}
