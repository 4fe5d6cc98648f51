import Foundation
import Testing

@testable import ClawTalkProtocol

@Suite("WireJSON")
struct WireJSONTests {
    @Test(
        "parses every JSON type",
        arguments: [
            ("null", WireJSON.null),
            ("true", .bool(true)),
            ("false", .bool(false)),
            ("0", .integer(0)),
            ("-12", .integer(-12)),
            ("1754640000000", .integer(1_754_640_000_000)),
            ("9223372036854775807", .integer(Int64.max)),
            ("1.5", .number(1.5)),
            ("-2.5e3", .number(-2500)),
            ("1E2", .number(100)),
            ("\"a\\\"b\\\\c\\/d\\n\\t\\u0041\"", .string("a\"b\\c/d\n\tA")),
            ("\"\\ud83d\\ude00\"", .string("😀")),
            ("\"\\ud83d x\"", .string("\u{FFFD} x")),
            ("\"héllo\"", .string("héllo")),
            ("[1,[2,[]],{}]", .array([.integer(1), .array([.integer(2), .array([])]), .object(WireObject())])),
            (" {\"a\" : 1 , \"b\":[true]} ", WireJSON.object(["a": 1, "b": [true]])),
        ])
    func parses(text: String, expected: WireJSON) throws {
        let value = try WireJSON(parsing: text)
        #expect(value == expected)
    }

    @Test("keeps integers exact and apart from fractions")
    func integersExact() throws {
        let big = try WireJSON(parsing: "9007199254740993")
        #expect(big.int64Value == 9_007_199_254_740_993)
        #expect(try WireJSON(parsing: "1.5").int64Value == nil)
        #expect(try WireJSON(parsing: "2.0").int64Value == 2)
        #expect(try WireJSON(parsing: "\"3\"").int64Value == nil)
        // Beyond Int64: kept as a double, not rejected.
        #expect(try WireJSON(parsing: "18446744073709551616").doubleValue == 18_446_744_073_709_551_616)
    }

    @Test(
        "rejects malformed JSON with a reason and offset",
        arguments: [
            ("", "empty input"),
            ("   ", "no JSON value"),
            ("{", "expected an object key"),
            ("{\"a\":1,}", "expected an object key"),
            ("[1,]", "unexpected character"),
            ("[1 2]", "expected ',' or ']'"),
            ("{\"a\" 1}", "expected ':'"),
            ("\"abc", "unterminated string"),
            ("\"a\u{01}b\"", "control character in string"),
            ("\"\\x\"", "invalid escape"),
            ("\"\\u12G4\"", "invalid \\u escape"),
            ("01", "leading zero in number"),
            ("-", "invalid number"),
            ("1.", "invalid number"),
            ("1e", "invalid number"),
            ("1e999", "number out of range"),
            ("tru", "invalid literal"),
            ("nul", "invalid literal"),
            ("{} x", "unexpected data after the JSON value"),
            ("NaN", "unexpected character"),
        ])
    func rejects(text: String, reason: String) {
        #expect {
            try WireJSON(parsing: text)
        } throws: { error in
            guard case ProtocolError.invalidJSON(let message) = error else { return false }
            return message.hasPrefix(reason) && message.contains("at byte")
        }
    }

    @Test("rejects invalid UTF-8 inside strings")
    func invalidUTF8() {
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(throws: ProtocolError.self) { try WireJSON(parsing: bytes) }
    }

    @Test("limits nesting depth")
    func depth() throws {
        let ok =
            String(repeating: "[", count: WireJSON.maximumNestingDepth)
            + String(repeating: "]", count: WireJSON.maximumNestingDepth)
        _ = try WireJSON(parsing: ok)
        let deep = "[" + ok + "]"
        #expect(throws: ProtocolError.self) { try WireJSON(parsing: deep) }
    }

    @Test("error messages never echo the input")
    func noEcho() {
        let secret = "tok_SECRET_value"
        do {
            _ = try WireJSON(parsing: "{\"token\":\"\(secret)\" oops}")
            Issue.record("expected a throw")
        } catch {
            #expect(!error.description.contains(secret))
            #expect(!error.description.contains("token"))
        }
    }

    @Test("encodes compactly, keeping key order and escaping")
    func encodes() throws {
        var object = WireObject()
        object["z"] = 1
        object["a"] = .string("line\n\"q\" \\ /é\u{01}")
        object["m"] = [.null, .bool(false), .number(0.25), .number(3.0)]
        let text = WireJSON.object(object).encodedString()
        #expect(text == #"{"z":1,"a":"line\n\"q\" \\ /é\u0001","m":[null,false,0.25,3]}"#)
        #expect(try WireJSON(parsing: text) == .object(object))
    }

    @Test("objects: order-insensitive equality, first position kept, last value wins")
    func objectSemantics() throws {
        let a = try WireJSON(parsing: #"{"a":1,"b":2}"#)
        let b = try WireJSON(parsing: #"{"b":2,"a":1}"#)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a.objectValue?.keys == ["a", "b"])
        #expect(b.objectValue?.keys == ["b", "a"])
        let dup = try WireJSON(parsing: #"{"k":1,"x":0,"k":2}"#)
        #expect(dup.objectValue?.keys == ["k", "x"])
        #expect(dup["k"] == 2)
        var object = try #require(dup.objectValue)
        object["k"] = nil
        #expect(object.keys == ["x"])
    }

    @Test("integer and number compare by value")
    func numericEquality() {
        #expect(WireJSON.integer(1) == .number(1.0))
        #expect(WireJSON.integer(1).hashValue == WireJSON.number(1.0).hashValue)
        #expect(WireJSON.integer(1) != .number(1.5))
        #expect(WireJSON.integer(1) != .string("1"))
    }

    @Test("accessors return nil for other types")
    func accessors() throws {
        let value = try WireJSON(parsing: #"{"s":"x","b":true,"n":2,"a":["p",1,"q"],"o":{"k":null}}"#)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["s"]?.intValue == nil)
        #expect(value["b"]?.boolValue == true)
        #expect(value["n"]?.intValue == 2)
        #expect(value["n"]?.boolValue == nil)
        #expect(value["a"]?.stringArrayValue == ["p", "q"])
        #expect(value["a"]?[1] == 1)
        #expect(value["a"]?[9] == nil)
        #expect(value["o"]?["k"]?.isNull == true)
        #expect(value["missing"] == nil)
        #expect(value["s"]?["k"] == nil)
    }

    @Test("Codable bridge round-trips through JSONEncoder/JSONDecoder")
    func codable() throws {
        let value: WireJSON = ["a": [1, 2.5, "x", .null, true], "b": ["c": "d"]]
        let data = try JSONEncoder().encode(value)
        let back = try JSONDecoder().decode(WireJSON.self, from: data)
        #expect(back == value)
    }

    @Test("encoding an Encodable omits nil optionals and sorts keys")
    func encodingEncodable() throws {
        struct Sample: Encodable {
            var zeta = 1
            var alpha: String? = nil
            var mid = "m"
        }
        let value = try WireJSON(encoding: Sample())
        #expect(value.encodedString() == #"{"mid":"m","zeta":1}"#)
    }

    @Test("typed decode names the missing key, not values")
    func typedDecode() throws {
        struct Need: Decodable { var runId: String }
        let value: WireJSON = ["other": "secret-value"]
        #expect {
            try value.decode(Need.self)
        } throws: { error in
            let text = String(describing: error)
            return text.contains("runId") && !text.contains("secret-value")
        }
        let ok: WireJSON = ["runId": "r1"]
        #expect(try ok.decode(Need.self).runId == "r1")
    }

    @Test(
        "UTF-16 truncation never splits a surrogate pair",
        arguments: [
            ("abcdef", 4, "abcd"),
            ("ab😀cd", 3, "ab"),
            ("ab😀cd", 4, "ab😀"),
            ("😀😀", 1, ""),
            ("short", 64, "short"),
        ])
    func truncation(input: String, limit: Int, expected: String) {
        let result = input.truncatedToUTF16(limit)
        #expect(result == expected)
        #expect(result.utf16.count <= limit)
    }
}
