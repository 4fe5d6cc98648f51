/// Turns key events into hold-to-talk edges for one key: the first press starts, the release
/// stops; autorepeat and repeated presses (several keyboards) are ignored.
public struct HoldToTalkKeyState: Sendable, Hashable {
    /// An edge to act on.
    public enum Edge: Sendable, Hashable {
        /// The key went down: start.
        case pressed
        /// The key came up: stop.
        case released
    }

    /// The key watched.
    public let code: UInt16
    /// Whether the key is held now.
    private(set) var isDown = false

    /// A state for key `code`, up.
    public init(code: UInt16) {
        self.code = code
    }

    /// The edge `event` makes, if any.
    public mutating func apply(_ event: InputEvent) -> Edge? {
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
    public mutating func reset() -> Edge? {
        guard isDown else { return nil }
        isDown = false
        return .released
    }
}
