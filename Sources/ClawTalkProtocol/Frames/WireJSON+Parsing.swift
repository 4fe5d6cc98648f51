public import Foundation

extension WireJSON {
    /// Deepest array/object nesting accepted; deeper input is rejected instead of recursing.
    public static let maximumNestingDepth = 256

    /// Parses one JSON value (RFC 8259) from UTF-8 bytes. Errors name the byte offset and the
    /// problem, never the input's contents.
    public init(parsing data: some Collection<UInt8>) throws(ProtocolError) {
        let result: Result<WireJSON, WireJSONParser.Failure> =
            data.withContiguousStorageIfAvailable { buffer in
                Result { () throws(WireJSONParser.Failure) in
                    var parser = WireJSONParser(UnsafeRawBufferPointer(buffer))
                    return try parser.parseDocument()
                }
            }
            ?? Array(data).withUnsafeBytes { buffer in
                Result { () throws(WireJSONParser.Failure) in
                    var parser = WireJSONParser(buffer)
                    return try parser.parseDocument()
                }
            }
        switch result {
        case .success(let value): self = value
        case .failure(let failure): throw .invalidJSON(failure.description)
        }
    }

    /// Parses one JSON value from `Data`.
    public init(parsing data: Data) throws(ProtocolError) {
        let result: Result<WireJSON, WireJSONParser.Failure> = data.withUnsafeBytes { buffer in
            Result { () throws(WireJSONParser.Failure) in
                var parser = WireJSONParser(buffer)
                return try parser.parseDocument()
            }
        }
        switch result {
        case .success(let value): self = value
        case .failure(let failure): throw .invalidJSON(failure.description)
        }
    }

    /// Parses one JSON value from text.
    public init(parsing text: String) throws(ProtocolError) {
        try self.init(parsing: Array(text.utf8))
    }
}

/// A strict RFC 8259 parser over UTF-8 bytes. Lone `\u` surrogates become U+FFFD (as
/// JavaScript would keep them unpaired, which Swift strings cannot hold).
struct WireJSONParser {
    /// Why parsing stopped, and where.
    struct Failure: Error, CustomStringConvertible {
        var reason: String
        var offset: Int
        var description: String { "\(reason) at byte \(offset)" }
    }

    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    private var depth = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(Failure) -> WireJSON {
        // A UTF-8 byte order mark is tolerated.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        skipWhitespace()
        if position >= bytes.count { throw fail(bytes.isEmpty ? "empty input" : "no JSON value") }
        let value = try parseValue()
        skipWhitespace()
        if position < bytes.count { throw fail("unexpected data after the JSON value") }
        return value
    }

    private func fail(_ reason: String) -> Failure {
        Failure(reason: reason, offset: position)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(Failure) -> WireJSON {
        guard position < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw fail("invalid literal") }
        for offset in 0..<count where bytes[position + offset] != literal.utf8Start[offset] {
            throw fail("invalid literal")
        }
        position += count
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > WireJSON.maximumNestingDepth { throw fail("nesting deeper than \(WireJSON.maximumNestingDepth)") }
    }

    private mutating func parseObject() throws(Failure) -> WireJSON {
        try enter()
        position += 1
        var object = WireObject()
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw fail("expected an object key")
            }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            position += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            guard position < bytes.count else { throw fail("unterminated object") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(object)
            default:
                throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(Failure) -> WireJSON {
        try enter()
        position += 1
        var array: [WireJSON] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw fail("unterminated array") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(array)
            default:
                throw fail("expected ',' or ']'")
            }
        }
    }

    private mutating func parseString() throws(Failure) -> String {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
                position += 1
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw Failure(reason: "invalid UTF-8 in string", offset: start)
                }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("control character in string") }
            position += 1
        }
        var buffer = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let string = String(validating: buffer, as: UTF8.self) else {
                    throw Failure(reason: "invalid UTF-8 in string", offset: start)
                }
                return string
            case UInt8(ascii: "\\"):
                position += 1
                try parseEscape(into: &buffer)
            case 0..<0x20:
                throw fail("control character in string")
            default:
                buffer.append(byte)
                position += 1
            }
        }
        throw fail("unterminated string")
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(Failure) {
        guard position < bytes.count else { throw fail("unterminated escape") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): buffer.append(0x22)
        case UInt8(ascii: "\\"): buffer.append(0x5C)
        case UInt8(ascii: "/"): buffer.append(0x2F)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var unit = try parseHex4()
            var scalar: Unicode.Scalar?
            if (0xD800...0xDBFF).contains(unit), position + 6 <= bytes.count,
                bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
            {
                let saved = position
                position += 2
                let low = try parseHex4()
                if (0xDC00...0xDFFF).contains(low) {
                    scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                } else {
                    position = saved  // not a pair: the next escape stands alone
                }
            }
            if scalar == nil {
                if (0xD800...0xDFFF).contains(unit) { unit = 0xFFFD }
                scalar = Unicode.Scalar(unit)
            }
            buffer.append(contentsOf: String(scalar ?? "\u{FFFD}").utf8)
        default:
            throw fail("invalid escape")
        }
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private mutating func parseNumber() throws(Failure) -> WireJSON {
        let start = position
        var isInteger = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw fail("invalid number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw fail("leading zero in number") }
        } else {
            skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw fail("invalid number") }
            skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else { throw fail("invalid number") }
            skipDigits()
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if isInteger, let exact = Int64(text) { return .integer(exact) }
        guard let value = Double(text), value.isFinite else {
            throw Failure(reason: "number out of range", offset: start)
        }
        return .number(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }
}
