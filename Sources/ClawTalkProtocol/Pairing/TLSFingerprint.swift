/// A TLS leaf-certificate pin: SHA-256 of the DER leaf, 64 lowercase hex characters
/// (protocol.md §17.1).
public struct TLSFingerprint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 64 lowercase hex characters.
    public let hex: String

    /// A pin from any accepted spelling; nil when it does not normalize.
    public init?(_ input: String) {
        guard let hex = Self.normalize(input) else { return nil }
        self.hex = hex
    }

    /// Normalizes a pin: strips a `sha256:`/`sha-256:` prefix (any case), colons and
    /// whitespace; requires exactly 64 hex digits; returns them lowercase. Nil otherwise.
    public static func normalize(_ input: String) -> String? {
        var value = Substring(input.trimmingWhitespace())
        for prefix in ["sha256:", "sha-256:"] where value.lowercased().hasPrefix(prefix) {
            value = value.dropFirst(prefix.count)
            break
        }
        let digits = value.unicodeScalars.filter { $0 != ":" && !$0.properties.isWhitespace }
        guard digits.count == 64,
            digits.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) || ("A"..."F").contains($0) })
        else { return nil }
        return String(String.UnicodeScalarView(digits)).lowercased()
    }

    /// The hex string.
    public var description: String { hex }

    /// Decodes a stored pin, normalizing it; an invalid pin is a decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let pin = TLSFingerprint(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a SHA-256 pin")
        }
        self = pin
    }

    /// Encodes the pin as its hex string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
