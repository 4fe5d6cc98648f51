extension JSON5Scanner {
    static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "$" || c == "_" || c.properties.isIDStart
    }

    static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        isIdentifierStart(c) || c.properties.isIDContinue || c == "\u{200C}" || c == "\u{200D}"
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }

    static func hexValue(_ c: Unicode.Scalar) -> UInt32? {
        switch c {
        case "0"..."9": c.value - 0x30
        case "a"..."f": c.value - 0x61 + 10
        case "A"..."F": c.value - 0x41 + 10
        default: nil
        }
    }

    // MARK: - Strings

    mutating func parseString() throws(JSON5Error) -> String {
        let start = position
        let quote = advance()
        var out = String.UnicodeScalarView()
        while true {
            guard let c = peek() else { throw error("unterminated string", at: start) }
            if c == quote {
                advance()
                return String(out)
            }
            if c == "\n" || c == "\r" {
                throw error("line break in string (write \\n, or end the line with a backslash)")
            }
            if c == "\\" {
                try parseEscape(into: &out)
            } else {
                out.append(advance())
            }
        }
    }

    private mutating func parseEscape(into out: inout String.UnicodeScalarView) throws(JSON5Error) {
        let escape = position
        advance()
        guard let e = peek() else { throw error("unterminated string") }
        switch e {
        case "\n", "\u{2028}", "\u{2029}":
            advance()
        case "\r":
            advance()
            if peek() == "\n" { advance() }
        case "b":
            advance()
            out.append("\u{8}")
        case "f":
            advance()
            out.append("\u{C}")
        case "n":
            advance()
            out.append("\n")
        case "r":
            advance()
            out.append("\r")
        case "t":
            advance()
            out.append("\t")
        case "v":
            advance()
            out.append("\u{B}")
        case "0":
            advance()
            if let d = peek(), Self.isDigit(d) {
                throw error("invalid escape '\\0' followed by a digit", at: escape)
            }
            out.append("\0")
        case "1"..."9":
            throw error("invalid escape '\\\(Character(e))'", at: escape)
        case "x":
            advance()
            let value = try hexDigits(2, escape: escape, name: "\\x")
            out.append(Unicode.Scalar(UInt8(value)))
        case "u":
            advance()
            out.append(try unicodeEscape(escape: escape))
        default:
            out.append(advance())
        }
    }

    /// The scalar of a `\uXXXX` escape whose `\u` was consumed, joining a surrogate pair.
    private mutating func unicodeEscape(escape: SourcePosition) throws(JSON5Error) -> Unicode.Scalar {
        let value = try hexDigits(4, escape: escape, name: "\\u")
        switch value {
        case 0xD800...0xDBFF:
            guard peek() == "\\", peek(1) == "u" else {
                throw error("lone surrogate '\\u\(String(value, radix: 16))' in escape", at: escape)
            }
            let lowEscape = position
            advance()
            advance()
            let low = try hexDigits(4, escape: lowEscape, name: "\\u")
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error("lone surrogate '\\u\(String(value, radix: 16))' in escape", at: escape)
            }
            let combined = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            return Unicode.Scalar(combined)!
        case 0xDC00...0xDFFF:
            throw error("lone surrogate '\\u\(String(value, radix: 16))' in escape", at: escape)
        default:
            return Unicode.Scalar(value)!
        }
    }

    private mutating func hexDigits(_ count: Int, escape: SourcePosition, name: String) throws(JSON5Error) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let c = peek(), let digit = Self.hexValue(c) else {
                throw error("invalid escape: '\(name)' needs \(count) hex digits", at: escape)
            }
            advance()
            value = value * 16 + digit
        }
        return value
    }

    // MARK: - Identifiers

    /// An identifier name; the caller checked that it starts with an identifier start or `\`.
    mutating func parseIdentifier() throws(JSON5Error) -> String {
        var out = String.UnicodeScalarView()
        while let c = peek() {
            let isFirst = out.isEmpty
            if c == "\\" {
                let escape = position
                advance()
                guard peek() == "u" else {
                    throw error("invalid escape in identifier (only \\uXXXX is allowed)", at: escape)
                }
                advance()
                let scalar = try unicodeEscape(escape: escape)
                guard isFirst ? Self.isIdentifierStart(scalar) : Self.isIdentifierPart(scalar) else {
                    throw error(
                        "escaped character \(Self.describe(scalar)) is not allowed in an identifier", at: escape)
                }
                out.append(scalar)
            } else if isFirst ? Self.isIdentifierStart(c) : Self.isIdentifierPart(c) {
                out.append(advance())
            } else {
                break
            }
        }
        return String(out)
    }

    // MARK: - Numbers

    mutating func parseNumber() throws(JSON5Error) -> JSONValue {
        let start = position
        var negative = false
        if let sign = peek(), sign == "+" || sign == "-" {
            negative = advance() == "-"
        }
        guard let c = peek() else { throw error("unexpected end of input in number", at: start) }
        if c == "I" || c == "N" {
            let word = try parseIdentifier()
            if word == "Infinity" { return .double(negative ? -.infinity : .infinity) }
            if word == "NaN" { return .double(.nan) }
            throw error("invalid number", at: start)
        }
        if c == "0", let x = peek(1), x == "x" || x == "X" {
            advance()
            advance()
            return try parseHex(negative: negative, start: start)
        }
        var intDigits = ""
        var fracDigits = ""
        var exponent = ""
        var hasFraction = false
        while let d = peek(), Self.isDigit(d) { intDigits.unicodeScalars.append(advance()) }
        if peek() == "." {
            hasFraction = true
            advance()
            while let d = peek(), Self.isDigit(d) { fracDigits.unicodeScalars.append(advance()) }
        }
        guard !intDigits.isEmpty || !fracDigits.isEmpty else { throw error("invalid number", at: start) }
        if intDigits.count > 1 && intDigits.hasPrefix("0") {
            throw error("invalid number: leading zeros are not allowed", at: start)
        }
        if let e = peek(), e == "e" || e == "E" {
            advance()
            if let sign = peek(), sign == "+" || sign == "-" { exponent.unicodeScalars.append(advance()) }
            var expDigits = 0
            while let d = peek(), Self.isDigit(d) {
                exponent.unicodeScalars.append(advance())
                expDigits += 1
            }
            guard expDigits > 0 else { throw error("invalid number: exponent needs digits", at: start) }
        }
        try checkNumberEnd(start: start)
        let sign = negative ? "-" : ""
        if !hasFraction && exponent.isEmpty {
            if negative && intDigits == "0" { return .double(-0.0) }
            if let exact = Int64(sign + intDigits) { return .int(exact) }
        }
        let text =
            sign + (intDigits.isEmpty ? "0" : intDigits) + "." + (fracDigits.isEmpty ? "0" : fracDigits)
            + (exponent.isEmpty ? "" : "e" + exponent)
        guard let value = Double(text) else { throw error("invalid number", at: start) }
        return .double(value)
    }

    private mutating func parseHex(negative: Bool, start: SourcePosition) throws(JSON5Error) -> JSONValue {
        var digits: [UInt32] = []
        while let d = peek(), let v = Self.hexValue(d) {
            digits.append(v)
            advance()
        }
        guard !digits.isEmpty else { throw error("invalid number: '0x' needs hex digits", at: start) }
        try checkNumberEnd(start: start)
        var magnitude: UInt64 = 0
        var overflow = false
        for digit in digits {
            let (shifted, o1) = magnitude.multipliedReportingOverflow(by: 16)
            let (sum, o2) = shifted.addingReportingOverflow(UInt64(digit))
            overflow = overflow || o1 || o2
            magnitude = sum
        }
        if !overflow {
            if negative && magnitude == 0 { return .double(-0.0) }
            if negative && magnitude == UInt64(Int64.max) + 1 { return .int(.min) }
            if magnitude <= UInt64(Int64.max) { return .int(negative ? -Int64(magnitude) : Int64(magnitude)) }
        }
        let value = digits.reduce(0.0) { $0 * 16 + Double($1) }
        return .double(negative ? -value : value)
    }

    /// A number must not run straight into an identifier character, digit or second point.
    private func checkNumberEnd(start: SourcePosition) throws(JSON5Error) {
        if let c = peek(), Self.isIdentifierPart(c) || c == "." || c == "\\" {
            throw error("invalid number", at: start)
        }
    }
}
