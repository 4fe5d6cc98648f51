import ClawTalkSupport
import Foundation
import Glibc
import Synchronization

/// A Wyoming speech-to-text server on a real loopback TCP socket, written from the protocol
/// description and independent of the client code (its own framing, Foundation's JSON parser).
///
/// It is a strict peer: each connection must be `describe` (answered with `info`), or an
/// optional `transcribe`, then `audio-start` (integer `rate`, `width` 2, `channels`), one or
/// more `audio-chunk`s in exactly that format with a payload of whole frames, and `audio-stop`.
/// Anything else (unknown or out-of-order events, malformed JSON, a data block that is not an
/// object, a chunk with no or a ragged payload) is recorded as a violation, answered with an
/// `error` event and the connection is closed. After `audio-stop` it answers as its
/// ``Behaviour`` says. Every connection is recorded as a ``Session``.
final class FakeWyomingServer: Sendable {
    /// How to answer a complete transcription request.
    enum Behaviour: Sendable {
        /// A `transcript-start` event (to be skipped), then `transcript` with `text`.
        case transcript(String)
        /// Never answer (the connection stays open until the client gives up).
        case silent
        /// Close the connection without answering.
        case close
        /// A header promising a 100-byte data block, 10 bytes of it, then close.
        case truncated
        /// A header line that is not JSON.
        case garbage
    }

    /// One received event.
    struct Event: Sendable, Equatable {
        var type: String
        /// The merged data as JSON with sorted keys.
        var data: String
        var payloadLength: Int
    }

    /// What one connection did.
    struct Session: Sendable {
        var events: [Event] = []
        var violation: String?
        var audioBytes = 0
        var language: String?
        var names: [String] = []
        var format: (rate: Int, width: Int, channels: Int)?

        var types: [String] { events.map(\.type) }
    }

    let port: Int
    private let behaviour: Behaviour
    /// The `info` data block.
    private let info: Data
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let recorded = Mutex<[Session]>([])
    private let finished = DispatchSemaphore(value: 0)

    /// Listens on 127.0.0.1 (`port` 0 picks a free one) and serves connections one at a time.
    init(
        behaviour: Behaviour, port: Int = 0, languages: [String] = ["de", "en"],
        modelName: String = "/models/whisper-base"
    ) throws {
        self.behaviour = behaviour
        let description: [String: Any] = [
            "asr": [
                [
                    "name": "faster-whisper", "version": "3.8.1", "installed": true,
                    "models": [["name": modelName, "languages": languages, "installed": true]],
                ]
            ]
        ]
        info = try JSONSerialization.data(withJSONObject: description)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.posix("socket", errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let code = errno
            close(fd)
            throw Failure.posix("bind/listen", code)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            serve()
            finished.signal()
        }
        thread.start()
    }

    deinit {
        stop()
    }

    /// Every connection so far.
    var sessions: [Session] { recorded.locked { $0 } }

    /// The sessions once at least `count` connections have ended (or after 30 s, whatever there
    /// is): a connection is recorded when the client closes it, which may be just after the client
    /// has its answer.
    func waitForSessions(_ count: Int) -> [Session] {
        let deadline = ContinuousClock.now + .seconds(30)
        while sessions.count < count && ContinuousClock.now < deadline { usleep(5000) }
        return sessions
    }

    /// Stops listening and waits for the serving thread.
    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        finished.wait()
        close(listener)
    }

    enum Failure: Error, CustomStringConvertible {
        case posix(String, Int32)
        case protocolViolation(String)
        case closed

        var description: String {
            switch self {
            case .posix(let call, let code): "\(call): \(String(cString: strerror(code)))"
            case .protocolViolation(let message): message
            case .closed: "peer closed"
            }
        }
    }

    // MARK: - Serving

    private func serve() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var session = Session()
            handle(client, &session)
            recorded.locked { $0.append(session) }
            close(client)
        }
    }

    private func handle(_ fd: Int32, _ session: inout Session) {
        var reader = Reader(fd: fd)
        var state = "idle"
        do {
            while true {
                guard let (type, data, payload) = try reader.event() else {
                    if state != "idle" { session.violation = "connection closed in state \(state)" }
                    return
                }
                session.events.append(Event(type: type, data: Self.sortedJSON(data), payloadLength: payload.count))
                switch (type, state) {
                case ("describe", "idle"):
                    try send(fd, type: "info", block: info)
                case ("transcribe", "idle"):
                    session.language = data["language"] as? String
                    session.names = data["transcript_names"] as? [String] ?? []
                    state = "transcribe"
                case ("audio-start", "idle"), ("audio-start", "transcribe"):
                    session.format = try Self.format(data, of: type)
                    state = "audio"
                case ("audio-chunk", "audio"):
                    let format = try Self.format(data, of: type)
                    guard let expected = session.format, format == expected else {
                        throw Failure.protocolViolation("audio-chunk format \(format) differs from audio-start")
                    }
                    guard !payload.isEmpty, payload.count % (format.width * format.channels) == 0 else {
                        throw Failure.protocolViolation(
                            "audio-chunk payload of \(payload.count) bytes is not whole frames")
                    }
                    session.audioBytes += payload.count
                case ("audio-stop", "audio"):
                    try answer(fd)
                    if case .silent = behaviour {
                        // Hold the connection until the client closes it.
                        _ = try? reader.event()
                    }
                    return
                default:
                    throw Failure.protocolViolation("unexpected '\(type)' in state \(state)")
                }
            }
        } catch Failure.closed {
            session.violation = "connection closed in the middle of an event"
        } catch {
            session.violation = "\(error)"
            try? send(fd, type: "error", data: ["text": "\(error)", "code": "fake-violation"])
        }
    }

    private func answer(_ fd: Int32) throws {
        switch behaviour {
        case .transcript(let text):
            try send(fd, type: "transcript-start", data: [:])
            try send(fd, type: "transcript", data: ["text": text])
        case .silent, .close:
            break
        case .truncated:
            try write(fd, Array("{\"type\": \"transcript\", \"data_length\": 100}\n{\"text\": \"".utf8))
        case .garbage:
            try write(fd, Array("this is not json\n".utf8))
        }
    }

    /// Writes an event the way the reference implementation does: data as a separate block.
    private func send(_ fd: Int32, type: String, data: [String: Any]) throws {
        try send(fd, type: type, block: data.isEmpty ? Data() : try JSONSerialization.data(withJSONObject: data))
    }

    private func send(_ fd: Int32, type: String, block: Data) throws {
        var header: [String: Any] = ["type": type, "version": "1.10.2"]
        if !block.isEmpty { header["data_length"] = block.count }
        var bytes = Array(try JSONSerialization.data(withJSONObject: header))
        bytes.append(0x0A)
        bytes += Array(block)
        try write(fd, bytes)
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure.posix("send", errno) }
            offset += n
        }
    }

    private static func format(_ data: [String: Any], of type: String) throws -> (rate: Int, width: Int, channels: Int)
    {
        guard let rate = data["rate"] as? Int, let width = data["width"] as? Int,
            let channels = data["channels"] as? Int, rate > 0, width == 2, channels > 0
        else {
            throw Failure.protocolViolation("\(type) needs integer rate, width 2 and channels, got \(sortedJSON(data))")
        }
        return (rate, width, channels)
    }

    private static func sortedJSON(_ data: [String: Any]) -> String {
        guard let bytes = try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys]) else { return "?" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads Wyoming events from a socket: header line, data block, payload.
    private struct Reader {
        let fd: Int32
        var buffer: [UInt8] = []

        /// The next event, or nil when the peer closed cleanly between events.
        mutating func event() throws -> (String, [String: Any], [UInt8])? {
            guard let line = try line() else { return nil }
            guard let header = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                throw Failure.protocolViolation("header is not a JSON object: \(String(decoding: line, as: UTF8.self))")
            }
            guard let type = header["type"] as? String else { throw Failure.protocolViolation("header without type") }
            var data = header["data"] as? [String: Any] ?? [:]
            if header["data"] != nil && header["data"] as? [String: Any] == nil {
                throw Failure.protocolViolation("data of \(type) is not an object")
            }
            let dataLength = try Self.length(header["data_length"], "data_length")
            let payloadLength = try Self.length(header["payload_length"], "payload_length")
            if dataLength > 0 {
                let block = try bytes(dataLength)
                guard let extra = try? JSONSerialization.jsonObject(with: Data(block)) as? [String: Any] else {
                    throw Failure.protocolViolation("data block of \(type) is not a JSON object")
                }
                data.merge(extra) { _, new in new }
            }
            return (type, data, try bytes(payloadLength))
        }

        private static func length(_ value: Any?, _ name: String) throws -> Int {
            guard let value else { return 0 }
            guard let n = value as? Int, n >= 0, n < 1 << 24 else {
                throw Failure.protocolViolation("\(name) is not a sane non-negative integer")
            }
            return n
        }

        private mutating func line() throws -> [UInt8]? {
            while true {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    let line = Array(buffer[..<newline])
                    buffer.removeFirst(newline + 1)
                    return line
                }
                guard buffer.count < 65536 else { throw Failure.protocolViolation("header line too long") }
                guard try fill() else {
                    if buffer.isEmpty { return nil }
                    throw Failure.closed
                }
            }
        }

        private mutating func bytes(_ count: Int) throws -> [UInt8] {
            while buffer.count < count {
                guard try fill() else { throw Failure.closed }
            }
            let result = Array(buffer[..<count])
            buffer.removeFirst(count)
            return result
        }

        /// Reads more bytes; false when the peer closed.
        private mutating func fill() throws -> Bool {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { return true }
                throw Failure.posix("recv", errno)
            }
            if n == 0 { return false }
            buffer += chunk[..<n]
            return true
        }
    }
}
