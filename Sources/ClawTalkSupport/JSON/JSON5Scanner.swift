/// The JSON5 parser's cursor: position tracking, trivia, and the structural grammar.
/// Literals (strings, numbers, identifiers) are in `JSON5Scanner+Literals.swift`.
struct JSON5Scanner {
    let scalars: [Unicode.Scalar]
    var index = 0
    var line = 1
    var column = 1
    var keyPositions: [[String]: SourcePosition] = [:]

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    var position: SourcePosition { SourcePosition(line: line, column: column) }

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let i = index + offset
        return i < scalars.count ? scalars[i] : nil
    }

    @discardableResult
    mutating func advance() -> Unicode.Scalar {
        let c = scalars[index]
        index += 1
        switch c {
        case "\n", "\u{2028}", "\u{2029}":
            line += 1
            column = 1
        case "\r":
            if peek() == "\n" {
                column += 1
            } else {
                line += 1
                column = 1
            }
        default:
            column += 1
        }
        return c
    }

    func error(_ message: String, at position: SourcePosition? = nil) -> JSON5Error {
        JSON5Error(position: position ?? self.position, message: message)
    }

    /// `'x'` for printable ASCII, `U+0007` otherwise.
    static func describe(_ c: Unicode.Scalar) -> String {
        if c.value >= 0x21 && c.value <= 0x7E { return "'\(Character(c))'" }
        let hex = String(c.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    static func isLineTerminator(_ c: Unicode.Scalar) -> Bool {
        c == "\n" || c == "\r" || c == "\u{2028}" || c == "\u{2029}"
    }

    static func isWhitespace(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "\t", "\u{B}", "\u{C}", " ", "\u{A0}", "\u{FEFF}": true
        default: c.properties.generalCategory == .spaceSeparator
        }
    }

    // MARK: - Document and trivia

    mutating func parseDocument(emptyDocument: JSONValue?) throws(JSON5Error) -> JSON5Document {
        try skipTrivia()
        if peek() == nil {
            if let empty = emptyDocument { return JSON5Document(value: empty) }
            throw error("unexpected end of input: the document has no value")
        }
        let value = try parseValue(path: [], depth: 0)
        try skipTrivia()
        if let c = peek() {
            throw error("unexpected \(Self.describe(c)) after the value")
        }
        return JSON5Document(value: value, keyPositions: keyPositions)
    }

    mutating func skipTrivia() throws(JSON5Error) {
        while let c = peek() {
            if Self.isWhitespace(c) || Self.isLineTerminator(c) {
                advance()
            } else if c == "/" && peek(1) == "/" {
                while let d = peek(), !Self.isLineTerminator(d) { advance() }
            } else if c == "/" && peek(1) == "*" {
                let start = position
                advance()
                advance()
                while true {
                    guard let d = peek() else { throw error("unterminated comment", at: start) }
                    if d == "*" && peek(1) == "/" {
                        advance()
                        advance()
                        break
                    }
                    advance()
                }
            } else {
                return
            }
        }
    }

    // MARK: - Values

    mutating func parseValue(path: [String], depth: Int) throws(JSON5Error) -> JSONValue {
        try skipTrivia()
        guard let c = peek() else { throw error("unexpected end of input: expected a value") }
        switch c {
        case "{":
            return try parseObject(path: path, depth: depth + 1)
        case "[":
            return try parseArray(path: path, depth: depth + 1)
        case "\"", "'":
            return .string(try parseString())
        case "+", "-", ".", "0"..."9":
            return try parseNumber()
        default:
            guard Self.isIdentifierStart(c) else { throw error("unexpected \(Self.describe(c))") }
            let start = position
            let word = try parseIdentifier()
            switch word {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null": return .null
            case "Infinity": return .double(.infinity)
            case "NaN": return .double(.nan)
            default: throw error("unexpected identifier '\(word)' (strings must be quoted)", at: start)
            }
        }
    }

    mutating func parseObject(path: [String], depth: Int) throws(JSON5Error) -> JSONValue {
        let open = position
        guard depth <= JSON5Parser.maximumDepth else {
            throw error("nesting deeper than \(JSON5Parser.maximumDepth) levels")
        }
        advance()
        var members: [JSONObject.Member] = []
        var seen: Set<String> = []
        while true {
            try skipTrivia()
            guard let c = peek() else { throw error("unexpected end of input: object opened at \(open) is not closed") }
            if c == "}" {
                advance()
                return .object(JSONObject(members))
            }
            let keyPosition = position
            let key: String
            if c == "\"" || c == "'" {
                key = try parseString()
            } else if Self.isIdentifierStart(c) || c == "\\" {
                key = try parseIdentifier()
            } else {
                throw error("expected a key or '}' but found \(Self.describe(c))")
            }
            guard seen.insert(key).inserted else { throw error("duplicate key '\(key)'", at: keyPosition) }
            keyPositions[path + [key]] = keyPosition
            try skipTrivia()
            guard peek() == ":" else { throw error("expected ':' after key") }
            advance()
            let value = try parseValue(path: path + [key], depth: depth)
            members.append(JSONObject.Member(key: key, value: value))
            try skipTrivia()
            switch peek() {
            case ",":
                advance()
            case "}":
                advance()
                return .object(JSONObject(members))
            case nil:
                throw error("unexpected end of input: object opened at \(open) is not closed")
            default:
                throw error("expected ',' or '}' after object member")
            }
        }
    }

    mutating func parseArray(path: [String], depth: Int) throws(JSON5Error) -> JSONValue {
        let open = position
        guard depth <= JSON5Parser.maximumDepth else {
            throw error("nesting deeper than \(JSON5Parser.maximumDepth) levels")
        }
        advance()
        var items: [JSONValue] = []
        while true {
            try skipTrivia()
            guard let c = peek() else { throw error("unexpected end of input: array opened at \(open) is not closed") }
            if c == "]" {
                advance()
                return .array(items)
            }
            items.append(try parseValue(path: path + ["[\(items.count)]"], depth: depth))
            try skipTrivia()
            switch peek() {
            case ",":
                advance()
            case "]":
                advance()
                return .array(items)
            case nil:
                throw error("unexpected end of input: array opened at \(open) is not closed")
            default:
                throw error("expected ',' or ']' after array element")
            }
        }
    }
}
