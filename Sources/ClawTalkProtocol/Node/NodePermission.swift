/// Keys of `ConnectParams.permissions` clawtalk reports (protocol.md §7.2).
public enum NodePermission: String, Sendable, Hashable, Codable, CaseIterable {
    /// The configured capture device opens.
    case microphone
    /// The local STT engine is loaded.
    case speechRecognition
}
