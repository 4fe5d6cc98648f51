/// The key of evdev hold-to-talk (`ptt.evdevKey`): a `KEY_…`/`BTN_…` name from
/// `linux/input-event-codes.h` or a numeric code 0…767.
public struct EvdevKey: Sendable, Hashable, CustomStringConvertible {
    /// The key code (`KEY_RIGHTCTRL` = 97).
    public let code: UInt16
    /// The name as configured.
    public let name: String

    /// Highest key code (`KEY_MAX`).
    public static let maximumCode: UInt16 = 0x2FF

    /// The key for a configured value; nil for an unknown name or a code out of range.
    public init?(_ value: String) {
        if let number = Int(value) {
            guard number >= 0, number <= Int(Self.maximumCode) else { return nil }
            let code = UInt16(number)
            self.code = code
            name = Self.names.first { $0.value == code }?.key ?? value
            return
        }
        guard let code = Self.names[value.uppercased()] else { return nil }
        self.code = code
        name = value.uppercased()
    }

    /// `KEY_RIGHTCTRL (97)`.
    public var description: String { "\(name) (\(code))" }

    /// The names people bind push-to-talk to, with their codes (linux/input-event-codes.h).
    public static let names: [String: UInt16] = [
        "KEY_ESC": 1, "KEY_1": 2, "KEY_2": 3, "KEY_3": 4, "KEY_4": 5, "KEY_5": 6, "KEY_6": 7, "KEY_7": 8, "KEY_8": 9,
        "KEY_9": 10, "KEY_0": 11, "KEY_BACKSPACE": 14, "KEY_TAB": 15, "KEY_Q": 16, "KEY_W": 17, "KEY_E": 18,
        "KEY_R": 19, "KEY_T": 20, "KEY_Y": 21, "KEY_U": 22, "KEY_I": 23, "KEY_O": 24, "KEY_P": 25, "KEY_ENTER": 28,
        "KEY_LEFTCTRL": 29, "KEY_A": 30, "KEY_S": 31, "KEY_D": 32, "KEY_F": 33, "KEY_G": 34, "KEY_H": 35, "KEY_J": 36,
        "KEY_K": 37, "KEY_L": 38, "KEY_GRAVE": 41, "KEY_LEFTSHIFT": 42, "KEY_Z": 44, "KEY_X": 45, "KEY_C": 46,
        "KEY_V": 47, "KEY_B": 48, "KEY_N": 49, "KEY_M": 50, "KEY_RIGHTSHIFT": 54, "KEY_LEFTALT": 56, "KEY_SPACE": 57,
        "KEY_CAPSLOCK": 58, "KEY_F1": 59, "KEY_F2": 60, "KEY_F3": 61, "KEY_F4": 62, "KEY_F5": 63, "KEY_F6": 64,
        "KEY_F7": 65, "KEY_F8": 66, "KEY_F9": 67, "KEY_F10": 68, "KEY_NUMLOCK": 69, "KEY_SCROLLLOCK": 70,
        "KEY_F11": 87, "KEY_F12": 88, "KEY_KPENTER": 96, "KEY_RIGHTCTRL": 97, "KEY_SYSRQ": 99, "KEY_RIGHTALT": 100,
        "KEY_HOME": 102, "KEY_UP": 103, "KEY_PAGEUP": 104, "KEY_LEFT": 105, "KEY_RIGHT": 106, "KEY_END": 107,
        "KEY_DOWN": 108, "KEY_PAGEDOWN": 109, "KEY_INSERT": 110, "KEY_DELETE": 111, "KEY_MUTE": 113,
        "KEY_VOLUMEDOWN": 114, "KEY_VOLUMEUP": 115, "KEY_PAUSE": 119, "KEY_LEFTMETA": 125, "KEY_RIGHTMETA": 126,
        "KEY_COMPOSE": 127, "KEY_MENU": 139, "KEY_PLAYPAUSE": 164, "KEY_RECORD": 167, "KEY_F13": 183,
        "KEY_F14": 184, "KEY_F15": 185, "KEY_F16": 186, "KEY_F17": 187, "KEY_F18": 188, "KEY_F19": 189,
        "KEY_F20": 190, "KEY_F21": 191, "KEY_F22": 192, "KEY_F23": 193, "KEY_F24": 194, "KEY_PRINT": 210,
        "KEY_MICMUTE": 248, "BTN_LEFT": 0x110, "BTN_RIGHT": 0x111, "BTN_MIDDLE": 0x112, "BTN_SIDE": 0x113,
        "BTN_EXTRA": 0x114, "BTN_FORWARD": 0x115, "BTN_BACK": 0x116, "BTN_TASK": 0x117, "KEY_VOICECOMMAND": 582,
        "KEY_ASSISTANT": 583,
    ]
}
