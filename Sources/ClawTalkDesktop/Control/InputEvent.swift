/// One `struct input_event` read from `/dev/input/event*`: `struct timeval` (two native longs),
/// `__u16 type`, `__u16 code`, `__s32 value`, in native (little-endian) byte order.
public struct InputEvent: Sendable, Hashable {
    /// `EV_SYN`.
    public static let synchronization: UInt16 = 0x00
    /// `EV_KEY`.
    public static let key: UInt16 = 0x01
    /// `SYN_DROPPED`: the kernel's buffer overran; key state must be re-read.
    public static let dropped: UInt16 = 3
    /// Bytes per record on this platform (24 on 64-bit Linux).
    public static let size = 2 * MemoryLayout<Int>.size + 8

    /// Event type (`EV_KEY` …).
    public var type: UInt16
    /// Key code for `EV_KEY`.
    public var code: UInt16
    /// For keys: 1 press, 0 release, 2 autorepeat.
    public var value: Int32

    /// Decodes one record from exactly ``size`` bytes.
    public init?(record: some Collection<UInt8>) {
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
    public init(type: UInt16, code: UInt16, value: Int32) {
        self.type = type
        self.code = code
        self.value = value
    }
}
