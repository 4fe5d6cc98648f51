import Foundation

/// Private XDG config/state/data/runtime directories for one test run of the binary, so tests
/// never read or write the real user's files nor reach the user's running services: the control
/// socket, status file and the node's own speech server sockets live in the private runtime
/// directory. Unless a test clears them, speech-to-text and the wake keyword scorer are pointed at
/// closed loopback ports (``sttPort``, ``wakeScorerPort``): an explicitly configured address, as a
/// user with an external server has. With ``sttPort`` nil the node uses its own server on
/// `<runtime>/clawtalk/speech.sock`, the default. With nothing installed in the private data
/// directory, `run` starts no Whisper server nor keyword scorer either (tests that want one
/// install ``FakeWhisperInstall`` there), and the session bus is a dead address rather than the user's.
public struct TemporaryHome: Sendable {
    /// The home's root folder (`HOME`), under the system's temporary folder.
    public let root: String
    /// `stt.wyomingPort` for the binary (`CLAWTALK_STT_WYOMING_PORT`): closed unless a test sets
    /// a server's port; nil leaves it unset (the node's own server on its socket).
    public var sttPort: Int? = closedLoopbackPort()
    /// `wake.scorerPort` for the binary (`CLAWTALK_WAKE_SCORER_PORT`): closed unless a test sets
    /// a scorer's port; nil leaves it unset.
    public var wakeScorerPort: Int? = closedLoopbackPort()
    /// `XDG_CONFIG_HOME`.
    public var config: String { root + "/config" }
    /// `XDG_STATE_HOME`.
    public var state: String { root + "/state" }
    /// `XDG_DATA_HOME`.
    public var data: String { root + "/data" }
    /// `XDG_RUNTIME_DIR`.
    public var runtime: String { root + "/run" }

    /// Creates the four folders under a fresh root.
    public init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("clawtalk-home-\(UUID().uuidString)").path
        for dir in [config, state, data, runtime] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
    }

    /// Points this home's data directory at the venv and models that scripts/setup installed in
    /// `dataHome` (read only), so `clawtalk run` here starts the real servers.
    public func linkInstalledServers(from dataHome: String) throws {
        try FileManager.default.createDirectory(atPath: data + "/clawtalk", withIntermediateDirectories: true)
        for piece in ["venv", "models"] {
            try FileManager.default.createSymbolicLink(
                atPath: data + "/clawtalk/" + piece, withDestinationPath: dataHome + "/clawtalk/" + piece)
        }
    }

    /// Environment overrides pointing XDG at this home.
    public var environment: [String: String] {
        var environment = [
            "XDG_CONFIG_HOME": config, "XDG_STATE_HOME": state, "XDG_DATA_HOME": data, "XDG_RUNTIME_DIR": runtime,
            "HOME": root,
            // Not the user's session bus: a `clawtalk run` of theirs owns ai.openclaw.ClawTalk there.
            // Tests that need a bus start a private one and set this themselves.
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(runtime)/no-session-bus",
        ]
        if let sttPort { environment["CLAWTALK_STT_WYOMING_PORT"] = String(sttPort) }
        if let wakeScorerPort { environment["CLAWTALK_WAKE_SCORER_PORT"] = String(wakeScorerPort) }
        return environment
    }

    /// The node's own speech server socket in this home (``sttPort`` nil).
    public var speechSocket: String { runtime + "/clawtalk/speech.sock" }

    /// The transcript outbox files in this home's state directory (`*.outbox`; one per gateway
    /// with transcripts waiting, removed once they were all sent).
    public var outboxFiles: [String] {
        let directory = state + "/clawtalk"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".outbox") }.sorted()
    }

    /// Writes the user config file.
    public func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: config + "/clawtalk", withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: config + "/clawtalk/config.json5"))
    }

    /// Deletes the home and everything in it.
    public func remove() { try? FileManager.default.removeItem(atPath: root) }
}
