import Foundation

/// Identifiers clawtalk mints for the wire: request ids, capture ids, event ids and
/// idempotency keys are all lowercase UUID v4 strings.
public enum WireID {
    /// A fresh lowercase UUID v4, e.g. `9d3c1c2e-5f7a-4b1e-9a55-0c1d2e3f4a5b`.
    public static func make() -> String {
        UUID().uuidString.lowercased()
    }

    /// True when `string` is a lowercase UUID v4 (version nibble 4, RFC 4122 variant).
    public static func isLowercaseUUIDv4(_ string: String) -> Bool {
        let bytes = Array(string.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            switch index {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            }
        }
        return bytes[14] == UInt8(ascii: "4")
            && [UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "a"), UInt8(ascii: "b")].contains(bytes[19])
    }
}
