import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Glibc
import Synchronization

/// A hand-driven WebSocket "server" on a raw TCP socket, for wire-level tests of the client:
/// it reads the upgrade request, writes whatever the test scripted (given the client's key),
/// then records every frame the client sends (answering each with `reply`, if scripted) until
/// the client's close frame or EOF.
final class RawScriptedPeer: Sendable {
    /// One frame as the client sent it (unmasked).
    struct Frame: Sendable, Equatable {
        var fin: Bool
        var opcode: UInt8
        var masked: Bool
        var payload: [UInt8]
    }

    let port: Int
    private let listener: Int32
    private let state = Mutex<(request: String, frames: [Frame], finished: Bool)>(("", [], false))

    init(
        respond: @escaping @Sendable (_ key: String) -> [UInt8],
        reply: @escaping @Sendable (Frame) -> [UInt8] = { _ in [] }
    ) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 1) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve(respond, reply) }
        thread.start()
    }

    deinit {
        _ = Glibc.close(listener)
    }

    var request: String { state.locked { $0.request } }
    var frames: [Frame] { state.locked { $0.frames } }
    var isFinished: Bool { state.locked { $0.finished } }

    /// Waits until the client's side of the conversation is over.
    func waitUntilFinished(timeout: Duration = .seconds(30)) async throws {
        guard await eventually(within: timeout, { isFinished }) else {
            throw TimedOutWaiting(what: "the scripted peer")
        }
    }

    private func serve(_ respond: @Sendable (String) -> [UInt8], _ reply: @Sendable (Frame) -> [UInt8]) {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return finish() }
        defer { _ = Glibc.close(connection) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        func readMore() -> Bool {
            let n = read(connection, &chunk, chunk.count)
            guard n > 0 else { return false }
            buffer += chunk[0..<n]
            return true
        }
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            guard readMore() else { return finish() }
            headEnd = buffer.firstRange(of: terminator)?.upperBound
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd!)
        state.locked { $0.request = head }
        let key =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        let response = respond(key)
        _ = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }

        while true {
            while let (frame, used) = Self.decode(buffer) {
                buffer.removeFirst(used)
                state.locked { $0.frames.append(frame) }
                if frame.opcode == 8 { return finish() }
                let answer = reply(frame)
                _ = answer.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            }
            guard readMore() else { return finish() }
        }
    }

    private func finish() {
        state.locked { $0.finished = true }
    }

    /// Decodes one client frame from the front of `bytes` (unmasking it).
    static func decode(_ bytes: [UInt8]) -> (Frame, Int)? {
        guard bytes.count >= 2 else { return nil }
        let masked = bytes[1] & 0x80 != 0
        var length = Int(bytes[1] & 0x7f)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        let mask = masked ? Array(bytes[offset..<min(offset + 4, bytes.count)]) : []
        if masked { offset += 4 }
        guard bytes.count >= offset + length, mask.count == (masked ? 4 : 0) else { return nil }
        var payload = Array(bytes[offset..<offset + length])
        if masked { for i in payload.indices { payload[i] ^= mask[i & 3] } }
        let frame = Frame(fin: bytes[0] & 0x80 != 0, opcode: bytes[0] & 0x0f, masked: masked, payload: payload)
        return (frame, offset + length)
    }
}

/// A server-to-client frame (unmasked unless a mask is given).
func serverFrame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, mask: [UInt8]? = nil) -> [UInt8] {
    var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
    let maskBit: UInt8 = mask == nil ? 0 : 0x80
    if payload.count < 126 {
        frame.append(maskBit | UInt8(payload.count))
    } else {
        frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
    }
    if let mask {
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
    } else {
        frame += payload
    }
    return frame
}

/// A close frame payload: big-endian code, then the reason.
func closePayload(_ code: Int, _ reason: String) -> [UInt8] {
    [UInt8(code >> 8), UInt8(code & 0xff)] + Array(reason.utf8)
}

/// `Sec-WebSocket-Accept` for `key`, computed by the openssl command line tool.
func acceptValue(for key: String) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
        "-c", "printf %s \"$0\" | openssl sha1 -binary | openssl base64",
        key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11",
    ]
    let output = Pipe()
    process.standardOutput = output
    guard (try? process.run()) != nil else { return "" }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// A `101 Switching Protocols` head accepting `key`.
func switchingProtocols(key: String, accept: String? = nil) -> [UInt8] {
    Array(
        ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(accept ?? acceptValue(for: key))\r\n\r\n").utf8)
}
