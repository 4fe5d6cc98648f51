import Foundation

/// A parsed HTTP/1.x response (status, headers, de-chunked body).
public struct HTTPResponse: Sendable, Hashable {
    /// Status code.
    public var status: Int
    /// Headers in order, names lowercased.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: [UInt8]

    /// A response with the given parts.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (any case).
    public func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.value
    }
}

/// One response header.
public struct HTTPHeader: Sendable, Hashable {
    /// Lowercased name.
    public var name: String
    /// Value without surrounding whitespace.
    public var value: String

    /// A header; the name is lowercased.
    public init(name: String, value: String) {
        self.name = name.lowercased()
        self.value = value
    }
}

/// Why bytes are not a valid HTTP/1.x response.
public enum HTTPResponseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Status line, header or chunk framing is broken (reason names the part).
    case malformed(String)
    /// The body is longer than the limit.
    case bodyTooLarge(limit: Int)
    /// The headers are longer than ``HTTPResponseParser/maxHeaderBytes``.
    case headersTooLarge

    /// One line.
    public var description: String {
        switch self {
        case .malformed(let reason): "malformed HTTP response: \(reason)"
        case .bodyTooLarge(let limit): "response body is larger than \(limit / 1024) KiB"
        case .headersTooLarge: "response headers are larger than \(HTTPResponseParser.maxHeaderBytes / 1024) KiB"
        }
    }
}

/// Pure parser of one HTTP/1.x response read so far: tells whether it is complete
/// (`Content-Length`, `chunked`, or the end of the stream), and enforces a body limit.
public enum HTTPResponseParser {
    /// Longest accepted status line plus headers.
    public static let maxHeaderBytes = 16 * 1024

    /// The outcome for `bytes`.
    public enum Progress: Sendable, Hashable {
        /// More bytes are needed.
        case incomplete
        /// The whole response.
        case complete(HTTPResponse)
    }

    /// Parses `bytes`; `atEnd` says the peer closed the stream (ends an unframed body, and
    /// makes a response that is still incomplete malformed).
    public static func parse(_ bytes: [UInt8], maxBodyBytes: Int, atEnd: Bool) throws(HTTPResponseError) -> Progress {
        guard let headEnd = find([13, 10, 13, 10], in: bytes, from: 0) else {
            if bytes.count > maxHeaderBytes { throw .headersTooLarge }
            if atEnd { throw .malformed(bytes.isEmpty ? "empty response" : "truncated headers") }
            return .incomplete
        }
        guard headEnd <= maxHeaderBytes else { throw .headersTooLarge }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let status = try statusCode(lines[0])
        var headers: [HTTPHeader] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("header without a colon") }
            headers.append(
                HTTPHeader(
                    name: String(line[..<colon]),
                    value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = HTTPResponse(status: status, headers: headers)
        let rest = Array(bytes[(headEnd + 4)...])
        if status == 204 || status == 304 || (100..<200).contains(status) { return .complete(response) }
        if response.header("transfer-encoding")?.lowercased().contains("chunked") == true {
            guard let body = try dechunk(rest, maxBodyBytes: maxBodyBytes) else {
                if atEnd { throw .malformed("truncated chunked body") }
                return .incomplete
            }
            response.body = body
            return .complete(response)
        }
        if let lengthText = response.header("content-length") {
            // Digits only: Int("+2") and Int("-0") parse, but neither is a valid Content-Length.
            guard !lengthText.isEmpty, lengthText.utf8.allSatisfy({ (48...57).contains($0) }),
                let length = Int(lengthText)
            else { throw .malformed("invalid Content-Length") }
            guard length <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
            guard rest.count >= length else {
                if atEnd { throw .malformed("truncated body") }
                return .incomplete
            }
            response.body = Array(rest.prefix(length))
            return .complete(response)
        }
        guard rest.count <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
        guard atEnd else { return .incomplete }
        response.body = rest
        return .complete(response)
    }

    private static func statusCode(_ line: String) throws(HTTPResponseError) -> Int {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let code = Int(parts[1]),
            (100...599).contains(code)
        else { throw .malformed("invalid status line") }
        return code
    }

    /// The de-chunked body, or nil while the final chunk has not arrived.
    private static func dechunk(_ bytes: [UInt8], maxBodyBytes: Int) throws(HTTPResponseError) -> [UInt8]? {
        var body: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = find([13, 10], in: bytes, from: index) else { return nil }
            let sizeText =
                String(decoding: bytes[index..<lineEnd], as: UTF8.self)
                .split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            // Hex digits only: Int(_:radix:) takes a sign, and a negative size would make a
            // reversed range below (found by Fuzz/http_response.swift).
            guard !sizeText.isEmpty, sizeText.count <= 8, sizeText.utf8.allSatisfy({ Self.isASCIIHexDigit($0) }),
                let size = Int(sizeText, radix: 16)
            else {
                throw .malformed("invalid chunk size")
            }
            index = lineEnd + 2
            if size == 0 { return body }
            guard body.count + size <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
            guard bytes.count >= index + size + 2 else { return nil }
            body += bytes[index..<(index + size)]
            guard bytes[index + size] == 13, bytes[index + size + 1] == 10 else {
                throw .malformed("chunk without CRLF")
            }
            index += size + 2
        }
    }

    private static func isASCIIHexDigit(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0], Array(bytes[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}
