/// One `struct input_event` read from `/dev/input/event*`: `struct timeval` (two native longs),
/// `__u16 type`, `__u16 code`, `__s32 value`, in native (little-endian) byte order.
struct InputEvent: Sendable, Hashable {
    /// `EV_SYN`.
    static let synchronization: UInt16 = 0x00
    /// `EV_KEY`.
    static let key: UInt16 = 0x01
    /// `SYN_DROPPED`: the kernel's buffer overran; key state must be re-read.
    static let dropped: UInt16 = 3
    /// Bytes per record on this platform (24 on 64-bit Linux).
    static let size = 2 * MemoryLayout<Int>.size + 8

    /// Event type (`EV_KEY` …).
    var type: UInt16
    /// Key code for `EV_KEY`.
    var code: UInt16
    /// For keys: 1 press, 0 release, 2 autorepeat.
    var value: Int32

    /// Decodes one record from exactly ``size`` bytes.
    init?(record: some Collection<UInt8>) {
        guard record.count == Self.size else { return nil }
        let bytes = Array(record)
        let offset = 2 * MemoryLayout<Int>.size
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        type = u16(offset)
        code = u16(offset + 2)
        value = Int32(
            bitPattern: UInt32(bytes[offset + 4]) | UInt32(bytes[offset + 5]) << 8 | UInt32(bytes[offset + 6]) << 16
                | UInt32(bytes[offset + 7]) << 24)
    }

    /// An event with the given fields.
    init(type: UInt16, code: UInt16, value: Int32) {
        self.type = type
        self.code = code
        self.value = value
    }
}

/// Splits a device's byte stream into ``InputEvent``s, keeping a partial record for the next read.
struct InputEventDecoder: Sendable {
    private var pending: [UInt8] = []

    /// The events completed by `bytes`.
    mutating func decode(_ bytes: some Sequence<UInt8>) -> [InputEvent] {
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

/// Turns key events into hold-to-talk edges for one key: the first press starts, the release
/// stops; autorepeat and repeated presses (several keyboards) are ignored.
struct HoldToTalkKeyState: Sendable, Hashable {
    /// An edge to act on.
    enum Edge: Sendable, Hashable {
        /// The key went down: start.
        case pressed
        /// The key came up: stop.
        case released
    }

    /// The key watched.
    let code: UInt16
    /// Whether the key is held now.
    private(set) var isDown = false

    /// A state for key `code`, up.
    init(code: UInt16) {
        self.code = code
    }

    /// The edge `event` makes, if any.
    mutating func apply(_ event: InputEvent) -> Edge? {
        guard event.type == InputEvent.key, event.code == code else { return nil }
        switch event.value {
        case 1 where !isDown:
            isDown = true
            return .pressed
        case 0 where isDown:
            isDown = false
            return .released
        default:
            return nil
        }
    }

    /// A device went away (or events were dropped) while the key was held: release.
    mutating func reset() -> Edge? {
        guard isDown else { return nil }
        isDown = false
        return .released
    }
}
