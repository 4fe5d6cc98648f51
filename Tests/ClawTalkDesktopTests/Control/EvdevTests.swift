import Foundation
import Testing

@testable import ClawTalkDesktop

@Suite("evdev hold-to-talk")
struct EvdevTests {
    /// One `struct input_event` as the kernel writes it on this platform (little-endian).
    static func record(type: UInt16, code: UInt16, value: Int32, seconds: Int = 1_700_000_000) -> [UInt8] {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: seconds.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: Int(123_456).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: type.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: code.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        return bytes
    }

    static func key(_ code: UInt16, _ value: Int32) -> [UInt8] { record(type: 1, code: code, value: value) }
    static let syn = record(type: 0, code: 0, value: 0)

    @Test func recordsHaveTheKernelLayout() {
        #expect(InputEvent.size == 24)
        #expect(Self.syn.count == InputEvent.size)
        #expect(InputEvent(record: Self.key(97, 1)) == InputEvent(type: 1, code: 97, value: 1))
        #expect(
            InputEvent(record: Self.record(type: 4, code: 4, value: -458_980))
                == InputEvent(type: 4, code: 4, value: -458_980))
        #expect(InputEvent(record: Self.syn.dropLast()) == nil)
    }

    @Test func theDecoderJoinsRecordsSplitAcrossReads() {
        let stream = Self.key(97, 1) + Self.syn + Self.key(97, 2) + Self.syn + Self.key(97, 0) + Self.syn
        for split in [1, 7, 23, 24, 25, 50, stream.count - 1] {
            var decoder = InputEventDecoder()
            let events = decoder.decode(stream[..<split]) + decoder.decode(stream[split...])
            #expect(events.map(\.value) == [1, 0, 2, 0, 0, 0], "split at \(split)")
            #expect(events.filter { $0.type == 1 }.map(\.code) == [97, 97, 97])
        }
    }

    static let edgeCases: [(events: [InputEvent], edges: [HoldToTalkKeyState.Edge])] = [
        ([.init(type: 1, code: 97, value: 1), .init(type: 1, code: 97, value: 0)], [.pressed, .released]),
        // autorepeat and a second keyboard's press while held are ignored
        (
            [
                .init(type: 1, code: 97, value: 1), .init(type: 1, code: 97, value: 2),
                .init(type: 1, code: 97, value: 1), .init(type: 1, code: 97, value: 0),
            ], [.pressed, .released]
        ),
        // other keys and other event types with the same code
        (
            [
                .init(type: 1, code: 29, value: 1), .init(type: 2, code: 97, value: 1),
                .init(type: 1, code: 29, value: 0),
            ], []
        ),
        // a release without a press
        ([.init(type: 1, code: 97, value: 0)], []),
    ]

    @Test(arguments: edgeCases)
    func pressStartsReleaseStops(events: [InputEvent], edges: [HoldToTalkKeyState.Edge]) {
        var state = HoldToTalkKeyState(code: 97)
        #expect(events.compactMap { state.apply($0) } == edges)
    }

    @Test func aLostDeviceReleasesAHeldKey() {
        var state = HoldToTalkKeyState(code: 97)
        #expect(state.reset() == nil)
        #expect(state.apply(InputEvent(type: 1, code: 97, value: 1)) == .pressed)
        #expect(state.reset() == .released)
        #expect(state.apply(InputEvent(type: 1, code: 97, value: 0)) == nil)
    }

    static let keys: [(String, UInt16?)] = [
        ("KEY_RIGHTCTRL", 97), ("KEY_RIGHTALT", 100), ("key_f13", 183), ("BTN_SIDE", 0x113), ("97", 97),
        ("767", 767), ("768", nil), ("-1", nil), ("KEY_NOPE", nil), ("KEY_PAUSE", 119),
    ]

    @Test(arguments: keys)
    func keyNamesAndCodes(value: String, code: UInt16?) {
        #expect(EvdevKey(value)?.code == code)
    }

    @Test func numericCodesGetTheirNames() {
        #expect(EvdevKey("97")?.description == "KEY_RIGHTCTRL (97)")
    }

    @Test func keyBitmapsAreLittleEndian() {
        var bits = [UInt8](repeating: 0, count: 96)
        bits[97 / 8] = 1 << (97 % 8)
        #expect(EvdevHoldToTalk.bitIsSet(bits, 97))
        #expect(!EvdevHoldToTalk.bitIsSet(bits, 96))
        #expect(!EvdevHoldToTalk.bitIsSet(bits, 5000))
    }

    @Test func aScanSkipsFilesThatAreNotInputDevices() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ct-evdev-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = FileManager.default.createFile(atPath: directory + "/event0", contents: Data(Self.key(97, 1)))
        _ = FileManager.default.createFile(atPath: directory + "/mice", contents: Data())
        let scan = EvdevHoldToTalk.scan(directory: directory, code: 97, skipping: [])
        #expect(scan.total == 1)
        #expect(scan.opened.isEmpty, "a regular file answers no EVIOCGBIT")
        #expect(EvdevHoldToTalk.scan(directory: directory + "/missing", code: 97, skipping: []).total == 0)
    }
}
