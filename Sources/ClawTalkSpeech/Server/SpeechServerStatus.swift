/// Which Wyoming speech-to-text server `clawtalk run` uses and whether it answers: what
/// `clawtalk status` and `clawtalk doctor` show.
public struct SpeechServerStatus: Sendable, Hashable, Codable {
    /// Who runs the server.
    public enum Role: String, Sendable, Hashable, Codable {
        /// `clawtalk run` started it and restarts it when it dies.
        case supervised
        /// Someone else runs it (a `clawtalk-stt` unit, another machine).
        case external
        /// No server is in use: speech-to-text falls back to PocketSphinx.
        case none
    }

    /// Who runs the server.
    public var role: Role
    /// Whether it answers requests now.
    public var ready: Bool
    /// `host:port`.
    public var address: String
    /// The supervised server's process id.
    public var pid: Int32?
    /// One line for humans: `starting`, `restarting in 4 s after signal 9`, why there is none.
    public var detail: String

    /// Creates a status.
    public init(role: Role, ready: Bool, address: String, pid: Int32? = nil, detail: String) {
        self.role = role
        self.ready = ready
        self.address = address
        self.pid = pid
        self.detail = detail
    }

    /// `supervised, ready (pid 4242) at 127.0.0.1:10300`.
    public var summary: String {
        let state = ready ? "ready" : "not ready"
        let process = pid.map { " (pid \($0))" } ?? ""
        switch role {
        case .none: return "none: \(detail)"
        case .supervised, .external:
            let extra = ready || detail.isEmpty ? "" : ": \(detail)"
            return "\(role.rawValue), \(state)\(process) at \(address)\(extra)"
        }
    }
}
