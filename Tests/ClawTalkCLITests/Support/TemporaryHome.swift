import ClawTalkTesting
import Foundation

/// Private XDG config/state/data/runtime directories for one test run of the binary, so tests
/// never read or write the real user's files nor reach the user's running services: the control
/// socket and status file live in the private runtime directory, and speech-to-text points at a
/// closed loopback port (``sttPort``), so a `clawtalk-stt` or `clawtalk run` of the user's on
/// port 10300 changes nothing; the wake keyword scorer likewise (``wakeScorerPort``, instead of
/// 10401). With nothing installed in the private data directory, `run` starts no Whisper server
/// nor keyword scorer either (tests that want one install ``FakeWhisperInstall`` there),
/// and the session bus is a dead address rather than the user's.
struct TemporaryHome {
    let root: String
    /// `stt.wyomingPort` for the binary (`CLAWTALK_STT_WYOMING_PORT`): closed unless a test sets
    /// a server's port.
    var sttPort = closedLoopbackPort()
    /// `wake.scorerPort` for the binary (`CLAWTALK_WAKE_SCORER_PORT`): closed unless a test sets
    /// a scorer's port.
    var wakeScorerPort = closedLoopbackPort()
    var config: String { root + "/config" }
    var state: String { root + "/state" }
    var data: String { root + "/data" }
    var runtime: String { root + "/run" }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("clawtalk-home-\(UUID().uuidString)").path
        for dir in [config, state, data, runtime] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
    }

    /// Points this home's data directory at the venv and models that scripts/setup installed in
    /// `dataHome` (read only), so `clawtalk run` here starts the real servers.
    func linkInstalledServers(from dataHome: String) throws {
        try FileManager.default.createDirectory(atPath: data + "/clawtalk", withIntermediateDirectories: true)
        for piece in ["venv", "models"] {
            try FileManager.default.createSymbolicLink(
                atPath: data + "/clawtalk/" + piece, withDestinationPath: dataHome + "/clawtalk/" + piece)
        }
    }

    /// Environment overrides pointing XDG at this home.
    var environment: [String: String] {
        [
            "XDG_CONFIG_HOME": config, "XDG_STATE_HOME": state, "XDG_DATA_HOME": data, "XDG_RUNTIME_DIR": runtime,
            "HOME": root, "CLAWTALK_STT_WYOMING_PORT": String(sttPort),
            "CLAWTALK_WAKE_SCORER_PORT": String(wakeScorerPort),
            // Not the user's session bus: a `clawtalk run` of theirs owns ai.openclaw.ClawTalk there.
            // Tests that need a bus start a private one and set this themselves.
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(runtime)/no-session-bus",
        ]
    }

    /// Writes the user config file.
    func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: config + "/clawtalk", withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: config + "/clawtalk/config.json5"))
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}
