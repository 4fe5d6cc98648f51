// libFuzzer harness for the control socket's request reader: UnixSocket.readLine
// (Sources/ClawTalkCLI/Control/UnixSocket.swift) over a real AF_UNIX socket pair, then
// ControlRequest.parse (ControlRequest.swift), as ControlSocketServer.serve reads a client. The
// CLI module's other files (services, audio, gateway) are not needed and not built.
//
// Input: one option byte (bit 0: the client closes its end after writing, else it stays open
// and the read ends at the newline, the limit or the one-second receive timeout the server sets;
// only newline-terminated inputs are sent so), then what the client writes (at most 16 KiB).
// Checks besides traps and sanitizer findings: the line is the bytes before the first newline
// (complete) or a newline-free prefix that stops only at the end or the 4096-byte limit; a
// parsed request written back (line()) is one JSON line that parses to the same request.
import Foundation

/// libFuzzer's entry point: runs one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let closeAfterWriting = data[0] & 1 != 0
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: min(size - 1, 16384)))
    let newline = bytes.firstIndex(of: 0x0A)
    // An open client that sent no newline would hold the read for the whole timeout.
    if !closeAfterWriting, newline == nil || newline! >= 4096 { return 0 }

    var fds: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { fatalError("socketpair") }
    defer {
        close(fds[0])
        if !closeAfterWriting { close(fds[1]) }
    }
    var bufferSize = Int32(1 << 20)
    _ = setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
    precondition(UnixSocket.writeAll(fds[1], Data(bytes)), "socket pair write failed")
    if closeAfterWriting { close(fds[1]) }
    UnixSocket.setTimeout(fds[0], option: SO_RCVTIMEO, .seconds(1))

    let limit = 4096
    let (line, complete) = UnixSocket.readLine(fds[0], limit: limit)
    let read = [UInt8](line)
    if complete {
        guard let newline else { fatalError("complete without a newline") }
        precondition(read == Array(bytes[..<newline]), "complete line is not the bytes before the newline")
    } else {
        precondition(!read.contains(0x0A), "incomplete line holds a newline")
        precondition(read == Array(bytes.prefix(read.count)), "line is not a prefix of what was sent")
        precondition(read.count == bytes.count || read.count >= limit, "read stopped early")
        precondition(newline == nil || newline! >= read.count, "read went past a newline")
    }

    guard complete || !line.isEmpty, let request = ControlRequest.parse(line) else { return 0 }
    let written = request.line()
    precondition(written.last == 0x0A && written.dropLast().firstIndex(of: 0x0A) == nil, "not one line")
    precondition(ControlRequest.parse(written.dropLast()) == request, "request round trip changed it")
    precondition(ControlRequest.parse(written) == request, "request line with its newline does not parse")
    return 0
}
