// libFuzzer harness for the Wyoming reader: WyomingFrameDecoder
// (Sources/ClawTalkSpeech/Transcription/WyomingFrameDecoder.swift), which splits what a speech
// server sends into events, and WyomingInfo(event:) (WyomingInfo.swift) for `info` answers. The
// speech module's other files (engines, TFLite, processes) are not needed and not built.
//
// Input: one option byte (the piece size the stream is fed in: 1 to 63 bytes, or whole when
// 0), then the stream. Checks besides traps and sanitizer findings: the same events (NaN in data
// equal to NaN) and the same verdict whole and in pieces; a rejected stream throws
// SpeechError.wyomingProtocol; every event re-encodes (encoded()) to bytes that decode to the same
// event (data without non-finite numbers, which the encoder writes as null for Python's json);
// buffered bytes are bounded by the limits.
import ClawTalkSupport

/// libFuzzer's entry point: runs one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let piece = Int(data[0] & 63)
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))

    let whole = decode(bytes, pieceSize: bytes.count)
    let pieces = decode(bytes, pieceSize: piece == 0 ? max(bytes.count, 1) : piece)
    precondition(
        whole.events.count == pieces.events.count && zip(whole.events, pieces.events).allSatisfy(same),
        "events depend on how the stream was split")
    precondition(whole.error == pieces.error, "verdict depends on how the stream was split")
    if let error = whole.error, case .wyomingProtocol = error {
    } else if let error = whole.error {
        fatalError("rejected with \(error), not wyomingProtocol")
    }

    for event in whole.events {
        if event.type == "info" { _ = try? WyomingInfo(event: event) }
        guard finite(.object(event.data)) else { continue }
        var decoder = WyomingFrameDecoder()
        decoder.append(event.encoded())
        let again: WyomingEvent?
        do {
            again = try decoder.next()
        } catch {
            fatalError("re-encoded event rejected: \(error)")
        }
        precondition(again == event, "event round trip changed the event")
        precondition(decoder.isAtEventBoundary, "re-encoded event left bytes behind")
    }
    return 0
}

private func decode(_ bytes: [UInt8], pieceSize: Int) -> (events: [WyomingEvent], error: SpeechError?) {
    var decoder = WyomingFrameDecoder()
    var events: [WyomingEvent] = []
    var offset = 0
    repeat {
        let end = min(bytes.count, offset + pieceSize)
        decoder.append(bytes[offset..<end])
        offset = end
        do {
            while let event = try decoder.next() { events.append(event) }
        } catch {
            return (events, error)
        }
        precondition(
            decoder.bufferedByteCount <= WyomingFrameDecoder.maximumHeaderLength + 1 + pieceSize
                + WyomingFrameDecoder.maximumDataLength + WyomingFrameDecoder.maximumPayloadLength,
            "decoder buffers beyond its limits")
    } while offset < bytes.count
    return (events, nil)
}

/// Event equality where NaN equals NaN (the JSON5 reader accepts `NaN`; `==` says it differs
/// from itself).
private func same(_ a: WyomingEvent, _ b: WyomingEvent) -> Bool {
    a.type == b.type && a.payload == b.payload && same(.object(a.data), .object(b.data))
}

private func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.double(let x), .double(let y)): return x == y || (x.isNaN && y.isNaN)
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(same)
    case (.object(let x), .object(let y)):
        return x.keys == y.keys && zip(x.members, y.members).allSatisfy { same($0.value, $1.value) }
    default: return a == b
    }
}

private func finite(_ value: JSONValue) -> Bool {
    switch value {
    case .double(let d): d.isFinite
    case .array(let items): items.allSatisfy(finite)
    case .object(let object): object.members.allSatisfy { finite($0.value) }
    default: true
    }
}
