/// Splits a device's byte stream into ``InputEvent``s, keeping a partial record for the next read.
public struct InputEventDecoder: Sendable {
    private var pending: [UInt8] = []

    /// The events completed by `bytes`.
    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [InputEvent] {
        pending.append(contentsOf: bytes)
        var events: [InputEvent] = []
        var start = 0
        while pending.count - start >= InputEvent.size {
            if let event = InputEvent(record: pending[start..<start + InputEvent.size]) { events.append(event) }
            start += InputEvent.size
        }
        pending.removeFirst(start)
        return events
    }
}
