// libFuzzer harness for the join-URL response reader (HTTPResponseParser in
// Sources/ClawTalkGateway/Transport/HTTPResponse.swift), which parses what the join server
// sends. cws_https.c only moves those bytes; the parsing is this Swift code, built here with
// `swiftc -sanitize=fuzzer,address`.
//
// Input: one option byte (body limit, whether the stream ended), then the response bytes. Checks
// besides traps and sanitizer findings: a complete response never has a body above the limit;
// every shorter prefix of a complete response (stream still open) is incomplete or the same
// complete response, never an error the whole response did not give.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let options = data[0]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let limits = [0, 16, 1024, 1 << 20]
    let limit = limits[Int(options & 3)]
    let atEnd = options & 4 != 0
    let whole: HTTPResponseParser.Progress
    do {
        whole = try HTTPResponseParser.parse(bytes, maxBodyBytes: limit, atEnd: atEnd)
    } catch {
        return 0
    }
    guard case .complete(let response) = whole else { return 0 }
    precondition(response.body.count <= limit, "body above the limit")
    precondition((100...599).contains(response.status), "status out of range")
    // Reading stops at the first complete parse: a prefix must not already fail.
    let step = max(1, bytes.count / 16)
    var cut = 0
    while cut < bytes.count {
        let progress = try? HTTPResponseParser.parse(Array(bytes[..<cut]), maxBodyBytes: limit, atEnd: false)
        precondition(progress != nil, "a prefix of a valid response was rejected")
        cut += step
    }
    return 0
}
