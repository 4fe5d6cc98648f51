public import Foundation

extension WireJSON {
    /// Compact UTF-8 JSON text: object keys in their stored order, no insignificant
    /// whitespace, `/` unescaped, non-ASCII written as UTF-8. Non-finite numbers (which cannot
    /// come from parsing) are written as `null`, as `JSON.stringify` does.
    public func encodedBytes() -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }

    /// ``encodedBytes()`` as `Data`.
    public func encodedData() -> Data {
        Data(encodedBytes())
    }

    /// ``encodedBytes()`` as a `String`.
    public func encodedString() -> String {
        String(decoding: encodedBytes(), as: UTF8.self)
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let value):
            out.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value):
            out.append(contentsOf: String(value).utf8)
        case .number(let value):
            if !value.isFinite {
                out.append(contentsOf: "null".utf8)
            } else if let exact = self.int64Value, abs(value) < 9_007_199_254_740_992 {
                out.append(contentsOf: String(exact).utf8)
            } else {
                out.append(contentsOf: String(describing: value).utf8)
            }
        case .string(let value):
            Self.writeString(value, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
