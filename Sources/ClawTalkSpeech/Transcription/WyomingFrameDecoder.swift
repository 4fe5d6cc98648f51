import ClawTalkSupport

/// Splits a byte stream into ``WyomingEvent``s: feed bytes with ``append(_:)`` as they arrive and
/// take whole events with ``next()``.
///
/// Rejects (with ``SpeechError/wyomingProtocol(_:)``) a header that is not a JSON object with a
/// string `type`, `data` that is not an object, lengths that are not non-negative integers, a
/// data block that is not a JSON object, and anything over the size limits, so a confused or
/// hostile peer cannot make the client buffer without bound.
public struct WyomingFrameDecoder: Sendable {
    /// Longest accepted header line, in bytes.
    public static let maximumHeaderLength = 64 * 1024
    /// Largest accepted data block, in bytes.
    public static let maximumDataLength = 1024 * 1024
    /// Largest accepted payload, in bytes.
    public static let maximumPayloadLength = 16 * 1024 * 1024

    /// A parsed header waiting for its data block and payload.
    private struct Pending: Sendable {
        var type: String
        var data: JSONObject
        var dataLength: Int
        var payloadLength: Int
    }

    private var buffer: [UInt8] = []
    private var start = 0
    private var pending: Pending?

    /// An empty decoder.
    public init() {}

    /// Bytes received but not yet returned as events.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole event, or nil until more bytes arrive.
    public mutating func next() throws(SpeechError) -> WyomingEvent? {
        if pending == nil {
            guard let newline = buffer[start...].firstIndex(of: 0x0A) else {
                if bufferedByteCount > Self.maximumHeaderLength {
                    throw .wyomingProtocol("header line longer than \(Self.maximumHeaderLength) bytes")
                }
                return nil
            }
            guard newline - start <= Self.maximumHeaderLength else {
                throw .wyomingProtocol("header line longer than \(Self.maximumHeaderLength) bytes")
            }
            let line = buffer[start..<newline]
            start = newline + 1
            pending = try Self.header(line)
        }
        guard let header = pending, bufferedByteCount >= header.dataLength + header.payloadLength else { return nil }
        var data = header.data
        if header.dataLength > 0 {
            let block = buffer[start..<start + header.dataLength]
            for member in try Self.object(block, what: "data block of '\(header.type)'").members {
                data[member.key] = member.value
            }
            start += header.dataLength
        }
        let payload = Array(buffer[start..<start + header.payloadLength])
        start += header.payloadLength
        pending = nil
        compact()
        return WyomingEvent(type: header.type, data: data, payload: payload)
    }

    /// Whether no partial event is buffered (the stream may end here cleanly).
    public var isAtEventBoundary: Bool { pending == nil && bufferedByteCount == 0 }

    // MARK: - Private

    private mutating func compact() {
        if start > 65536 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
    }

    private static func header(_ line: ArraySlice<UInt8>) throws(SpeechError) -> Pending {
        let object = try object(line, what: "header")
        guard case .string(let type)? = object["type"], !type.isEmpty else {
            throw .wyomingProtocol("header without a string 'type': \(preview(line))")
        }
        var data = JSONObject()
        switch object["data"] {
        case nil, .null?: break
        case .object(let inline)?: data = inline
        case let other?: throw .wyomingProtocol("'data' of '\(type)' is a \(other.typeName), not an object")
        }
        let dataLength = try length(object, "data_length", of: type, limit: maximumDataLength)
        let payloadLength = try length(object, "payload_length", of: type, limit: maximumPayloadLength)
        return Pending(type: type, data: data, dataLength: dataLength, payloadLength: payloadLength)
    }

    private static func length(_ header: JSONObject, _ key: String, of type: String, limit: Int) throws(SpeechError)
        -> Int
    {
        switch header[key] {
        case nil, .null?: return 0
        case let value?:
            guard let n = value.integerValue, n >= 0 else {
                throw .wyomingProtocol("'\(key)' of '\(type)' is not a non-negative integer")
            }
            guard n <= limit else { throw .wyomingProtocol("'\(key)' of '\(type)' is \(n), over the \(limit) limit") }
            return Int(n)
        }
    }

    private static func object(_ bytes: ArraySlice<UInt8>, what: String) throws(SpeechError) -> JSONObject {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .wyomingProtocol("\(what) is not UTF-8")
        }
        let value: JSONValue
        do {
            value = try JSON5Parser.parse(text)
        } catch {
            throw .wyomingProtocol("\(what) is not JSON (\(error)): \(preview(bytes))")
        }
        guard case .object(let object) = value else {
            throw .wyomingProtocol("\(what) is a JSON \(value.typeName), not an object")
        }
        return object
    }

    private static func preview(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(80), as: UTF8.self)
        return bytes.count > 80 ? text + "…" : text
    }
}
