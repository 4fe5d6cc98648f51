import Testing

@testable import ClawTalkSupport

@Suite("JSON5 parser")
struct JSON5ParserTests {
    struct Valid: CustomTestStringConvertible, Sendable {
        let source: String
        let expected: JSONValue
        var testDescription: String { source.debugDescription }
    }

    static let valid: [Valid] = [
        // Plain JSON.
        .init(
            source: #"{"a": 1, "b": [true, false, null], "c": "x"}"#,
            expected: ["a": 1, "b": [true, false, nil], "c": "x"]),
        .init(source: "[]", expected: []),
        .init(source: "{}", expected: [:]),
        .init(source: "  42  ", expected: 42),
        // Comments.
        .init(source: "// leading\n{a: 1} // trailing", expected: ["a": 1]),
        .init(source: "{/* inline */a/* x */:/**/1}", expected: ["a": 1]),
        .init(source: "/* multi\nline\n*/ 7", expected: 7),
        // Unquoted identifier keys, including $, _, digits after the start, Unicode letters and escapes.
        .init(
            source: "{$a_1: 1, _b: 2, überKey: 3, \\u0061bc: 4}",
            expected: ["$a_1": 1, "_b": 2, "überKey": 3, "abc": 4]),
        .init(source: "{null: 1, true: 2, Infinity: 3}", expected: ["null": 1, "true": 2, "Infinity": 3]),
        // Single-quoted strings and quotes inside.
        .init(source: #"'it\'s'"#, expected: "it's"),
        .init(source: #"'say "hi"'"#, expected: "say \"hi\""),
        .init(source: #""single ' inside""#, expected: "single ' inside"),
        // Trailing commas.
        .init(source: "[1, 2, ]", expected: [1, 2]),
        .init(source: "{a: 1, b: 2,}", expected: ["a": 1, "b": 2]),
        // Numbers.
        .init(source: "0x1F", expected: .int(31)),
        .init(source: "-0XfF", expected: .int(-255)),
        .init(source: "+7", expected: .int(7)),
        .init(source: ".5", expected: .double(0.5)),
        .init(source: "5.", expected: .double(5.0)),
        .init(source: "-.25e2", expected: .double(-25.0)),
        .init(source: "1e3", expected: .double(1000.0)),
        .init(source: "1E-2", expected: .double(0.01)),
        .init(source: "Infinity", expected: .double(.infinity)),
        .init(source: "-Infinity", expected: .double(-.infinity)),
        .init(source: "+Infinity", expected: .double(.infinity)),
        .init(source: "9223372036854775807", expected: .int(.max)),
        .init(source: "-9223372036854775808", expected: .int(.min)),
        .init(source: "9223372036854775808", expected: .double(9_223_372_036_854_775_808.0)),
        .init(source: "0x10000000000000000", expected: .double(18_446_744_073_709_551_616.0)),
        .init(source: "-0", expected: .double(-0.0)),
        // Escapes.
        .init(source: #""\x41\u00e9\t\n\r\b\f\v\0\\\/\'\a""#, expected: "A\u{e9}\t\n\r\u{8}\u{C}\u{B}\0\\/'a"),
        .init(source: #""\uD83D\uDE00""#, expected: "😀"),
        // Multi-line strings with a backslash before the line break (LF, CRLF, U+2028).
        .init(source: "'one \\\ntwo'", expected: "one two"),
        .init(source: "'one \\\r\ntwo'", expected: "one two"),
        .init(source: "'a\\\u{2028}b'", expected: "ab"),
        .init(source: "'keeps\u{2028}separator'", expected: "keeps\u{2028}separator"),
        // Unusual whitespace: NBSP, BOM, vertical tab, form feed, U+2003 EM SPACE.
        .init(source: "\u{FEFF}\u{A0}\u{B}\u{C}\u{2003}[1]", expected: [1]),
        // Order is kept.
        .init(
            source: "{z: 1, a: 2, m: 3}",
            expected: .object(
                JSONObject([
                    .init(key: "z", value: 1), .init(key: "a", value: 2), .init(key: "m", value: 3),
                ]))),
    ]

    @Test("valid documents", arguments: valid)
    func parsesValid(_ testCase: Valid) throws {
        let value = try JSON5Parser.parse(testCase.source)
        #expect(value == testCase.expected)
        if case .object(let object) = value, case .object(let expected) = testCase.expected {
            #expect(object.keys == expected.keys)
        }
    }

    @Test func negativeZeroKeepsItsSign() throws {
        let value = try JSON5Parser.parse("-0")
        #expect(value.doubleValue?.sign == .minus)
    }

    @Test func nanParses() throws {
        #expect(try JSON5Parser.parse("NaN").doubleValue?.isNaN == true)
        #expect(try JSON5Parser.parse("-NaN").doubleValue?.isNaN == true)
    }

    struct Invalid: CustomTestStringConvertible, Sendable {
        let source: String
        let line: Int
        let column: Int
        let message: String
        var testDescription: String { source.debugDescription }
    }

    static let invalid: [Invalid] = [
        .init(source: "{a 1}", line: 1, column: 4, message: "expected ':' after key"),
        .init(source: "{\n  a: 1\n  b: 2\n}", line: 3, column: 3, message: "expected ',' or '}' after object member"),
        .init(source: "{a: 1, a: 2}", line: 1, column: 8, message: "duplicate key 'a'"),
        .init(source: "{a: 1, 'a': 2}", line: 1, column: 8, message: "duplicate key 'a'"),
        .init(source: "[1,,2]", line: 1, column: 4, message: "unexpected ','"),
        .init(source: "{,}", line: 1, column: 2, message: "expected a key or '}' but found ','"),
        .init(source: "[1 2]", line: 1, column: 4, message: "expected ',' or ']' after array element"),
        .init(source: "'abc", line: 1, column: 1, message: "unterminated string"),
        .init(
            source: "\"a\nb\"", line: 1, column: 3,
            message: "line break in string (write \\n, or end the line with a backslash)"),
        .init(source: "/* open", line: 1, column: 1, message: "unterminated comment"),
        .init(source: "01", line: 1, column: 1, message: "invalid number: leading zeros are not allowed"),
        .init(source: "1.2.3", line: 1, column: 1, message: "invalid number"),
        .init(source: "0x", line: 1, column: 1, message: "invalid number: '0x' needs hex digits"),
        .init(source: "1e", line: 1, column: 1, message: "invalid number: exponent needs digits"),
        .init(source: "12abc", line: 1, column: 1, message: "invalid number"),
        .init(source: ".", line: 1, column: 1, message: "invalid number"),
        .init(source: "+Inf", line: 1, column: 1, message: "invalid number"),
        .init(
            source: "[\n  undefined\n]", line: 2, column: 3,
            message: "unexpected identifier 'undefined' (strings must be quoted)"),
        .init(source: #""\1""#, line: 1, column: 2, message: "invalid escape '\\1'"),
        .init(source: #""\01""#, line: 1, column: 2, message: "invalid escape '\\0' followed by a digit"),
        .init(source: #""\xZZ""#, line: 1, column: 2, message: "invalid escape: '\\x' needs 2 hex digits"),
        .init(source: #""\u12""#, line: 1, column: 2, message: "invalid escape: '\\u' needs 4 hex digits"),
        .init(source: #""\uD800x""#, line: 1, column: 2, message: "lone surrogate '\\ud800' in escape"),
        .init(source: #""\uDC00""#, line: 1, column: 2, message: "lone surrogate '\\udc00' in escape"),
        .init(
            source: "{\\u0031a: 1}", line: 1, column: 2,
            message: "escaped character '1' is not allowed in an identifier"),
        .init(source: "[1] x", line: 1, column: 5, message: "unexpected 'x' after the value"),
        .init(source: "", line: 1, column: 1, message: "unexpected end of input: the document has no value"),
        .init(
            source: "// only a comment\n", line: 2, column: 1,
            message: "unexpected end of input: the document has no value"),
        .init(
            source: "{a: [1,\n", line: 2, column: 1,
            message: "unexpected end of input: array opened at line 1, column 5 is not closed"),
        .init(source: "{\r\n  a: 1,\r\n  b: @\r\n}", line: 3, column: 6, message: "unexpected '@'"),
        .init(source: "[\u{7}]", line: 1, column: 2, message: "unexpected U+0007"),
        .init(source: "{a:1}\r\r}", line: 3, column: 1, message: "unexpected '}' after the value"),
    ]

    @Test("errors carry line and column", arguments: invalid)
    func rejectsInvalid(_ testCase: Invalid) {
        #expect {
            _ = try JSON5Parser.parse(testCase.source)
        } throws: { error in
            guard let error = error as? JSON5Error else { return false }
            #expect(error.message == testCase.message)
            #expect(error.line == testCase.line)
            #expect(error.column == testCase.column)
            return error.message == testCase.message && error.line == testCase.line && error.column == testCase.column
        }
    }

    @Test func errorDescriptionLeadsWithPosition() {
        let error = JSON5Error(position: SourcePosition(line: 12, column: 5), message: "expected ':' after key")
        #expect(error.description == "line 12, column 5: expected ':' after key")
    }

    @Test func recordsKeyPositions() throws {
        let document = try JSON5Parser.parseDocument(
            "{\n  talk: {\n    silenceTimeoutMs: 700,\n  },\n  list: [{x: 1}]\n}")
        #expect(document.position(ofKey: ["talk"]) == SourcePosition(line: 2, column: 3))
        #expect(document.position(ofKey: ["talk", "silenceTimeoutMs"]) == SourcePosition(line: 3, column: 5))
        #expect(document.position(ofKey: ["list", "[0]", "x"]) == SourcePosition(line: 5, column: 11))
    }

    @Test func emptyDocumentCanBeAllowed() throws {
        let document = try JSON5Parser.parseDocument("  // nothing here\n/* at all */", emptyDocument: [:])
        #expect(document.value == [:])
    }

    @Test func nestingIsLimited() {
        let deep = String(repeating: "[", count: JSON5Parser.maximumDepth + 1)
        #expect(throws: JSON5Error.self) { try JSON5Parser.parse(deep) }
        let ok = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? JSON5Parser.parse(ok)) != nil)
    }

    @Test(
        "json5Text round-trips",
        arguments: [
            #"{a: 1, "b c": [true, null, "x\ny"], d: {e: -2.5}, f: Infinity}"#,
            "[0x10, .5, 'q\\'uote', {}]",
        ])
    func roundTrip(_ source: String) throws {
        let value = try JSON5Parser.parse(source)
        #expect(try JSON5Parser.parse(value.json5Text) == value)
    }

    @Test func integersStayExact() throws {
        let big = try JSON5Parser.parse("9007199254740993")
        #expect(big == .int(9_007_199_254_740_993))
        #expect(big.integerValue == 9_007_199_254_740_993)
        #expect(JSONValue.double(1000.0).integerValue == 1000)
        #expect(JSONValue.double(1.5).integerValue == nil)
    }
}
