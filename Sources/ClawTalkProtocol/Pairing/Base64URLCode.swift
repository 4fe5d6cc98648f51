/// Lenient base64 decoding for setup codes: the url-safe alphabet (standard `+`/`/` also
/// accepted), padding optional.
enum Base64URLCode {
    static func isCodeScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "-", "_", "=": true
        default: false
        }
    }

    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        var sawPadding = false
        for byte in text.utf8 {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="):
                sawPadding = true
                continue
            default:
                return nil
            }
            if sawPadding { return nil }  // data after padding
            values.append(value)
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 1 < values.count {
            let b0 = values[index], b1 = values[index + 1]
            out.append(b0 << 2 | b1 >> 4)
            if index + 2 < values.count {
                let b2 = values[index + 2]
                out.append((b1 & 0x0F) << 4 | b2 >> 2)
                if index + 3 < values.count { out.append((b2 & 0x03) << 6 | values[index + 3]) }
            }
            index += 4
        }
        return out
    }
}
