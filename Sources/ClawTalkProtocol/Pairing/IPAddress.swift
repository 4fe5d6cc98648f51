import Foundation

/// IP literal parsing and the address classes of protocol.md §17.2.
enum IPAddress {
    /// Dotted-quad IPv4 with decimal parts 0–255 and no leading zeros.
    static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                part.count == 1 || part.first != "0", let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    /// IPv6 literal (RFC 4291 text forms, `::` compression, trailing dotted IPv4); no zone id.
    static func parseIPv6(_ text: Substring) -> [UInt8]? {
        guard !text.isEmpty, text.count <= 45 else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    guard let v4 = parseIPv4(piece) else { return nil }
                    result.append(UInt16(v4[0]) << 8 | UInt16(v4[1]))
                    result.append(UInt16(v4[2]) << 8 | UInt16(v4[3]))
                    continue
                }
                guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit),
                    let value = UInt16(piece, radix: 16)
                else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all: [UInt16]
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
            all = head + [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard head.count == 8 else { return nil }
            all = head
        }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// The IPv4 address embedded as `::ffff:a.b.c.d`, if any.
    private static func mappedIPv4(_ v6: [UInt8]) -> [UInt8]? {
        guard v6[0..<10].allSatisfy({ $0 == 0 }), v6[10] == 0xFF, v6[11] == 0xFF else { return nil }
        return Array(v6[12..<16])
    }

    private static func hostName(_ host: String) -> String {
        host.hasSuffix(".") ? String(host.dropLast()) : host
    }

    static func isLoopback(_ host: String) -> Bool {
        let name = hostName(host.lowercased())
        if name == "localhost" { return true }
        if let v4 = parseIPv4(Substring(name)) { return v4[0] == 127 }
        if let v6 = parseIPv6(Substring(name)) {
            if let v4 = mappedIPv4(v6) { return v4[0] == 127 }
            return v6[0..<15].allSatisfy { $0 == 0 } && v6[15] == 1
        }
        return false
    }

    static func isLocalNetwork(_ host: String) -> Bool {
        let name = hostName(host.lowercased())
        if isLoopback(name) { return true }
        if let v4 = parseIPv4(Substring(name)) { return isLocalIPv4(v4) }
        if let v6 = parseIPv6(Substring(name)) {
            if let v4 = mappedIPv4(v6) { return isLocalIPv4(v4) }
            return (v6[0] == 0xFE && v6[1] & 0xC0 == 0x80)  // fe80::/10 link-local
                || (v6[0] & 0xFE == 0xFC)  // fc00::/7 unique local
        }
        return name.hasSuffix(".local") || name.hasSuffix(".ts.net")
    }

    private static func isLocalIPv4(_ a: [UInt8]) -> Bool {
        a[0] == 127  // loopback
            || a[0] == 10  // 10/8
            || (a[0] == 172 && (16...31).contains(a[1]))  // 172.16/12
            || (a[0] == 192 && a[1] == 168)  // 192.168/16
            || (a[0] == 169 && a[1] == 254)  // link-local
            || (a[0] == 100 && (64...127).contains(a[1]))  // CGNAT 100.64/10
    }
}
