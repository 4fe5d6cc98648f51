/// `caps` vocabulary (protocol.md §12). clawtalk advertises ``talk`` always and
/// ``voiceWake`` only while wake is enabled.
public enum NodeCapability: String, Sendable, Hashable, Codable, CaseIterable {
    /// Push-to-talk / Talk mode.
    case talk
    /// Voice wake.
    case voiceWake
    /// `canvas`.
    case canvas
    /// `browser`.
    case browser
    /// `camera`.
    case camera
    /// `screen`.
    case screen
    /// `computer`.
    case computer
    /// `location`.
    case location
    /// `device`.
    case device
    /// `system` (headless node host).
    case system
}
