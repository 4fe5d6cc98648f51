/// Base64url (RFC 4648 §5): the `-`/`_` alphabet, written without padding, as the Gateway
/// expects for `device.publicKey`, `device.signature` and setup codes.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Maps an ASCII byte to its 6-bit value, or 0xFF when it is not in the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    /// Encodes `bytes` with the url-safe alphabet and no `=` padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            guard let b1 else { break }
            out.append(alphabet[Int((b1 & 0x0F) << 2 | (b2 ?? 0) >> 6)])
            guard let b2 else { break }
            out.append(alphabet[Int(b2 & 0x3F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64url with or without trailing `=` padding; rejects the standard alphabet's
    /// `+`/`/`, whitespace, misplaced padding and non-canonical trailing bits.
    public static func decode(_ string: String) throws(Base64URLError) -> [UInt8] {
        // Characters first (the most useful error), then padding, length and trailing bits.
        var input = Array(string.utf8)
        var padding = 0
        while input.last == UInt8(ascii: "="), padding < 2 {
            input.removeLast()
            padding += 1
        }

        var out = [UInt8]()
        out.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for (offset, byte) in input.enumerated() {
            let value = decodeTable[Int(byte)]
            if value == 0xFF { throw .invalidCharacter(offset: offset) }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        if padding > 0, (input.count + padding) % 4 != 0 { throw .invalidPadding }
        if input.count % 4 == 1 { throw .invalidLength(input.count) }
        if accumulator != 0 { throw .nonCanonical }
        return out
    }
}
