import Foundation

/// Private XDG config/state/data directories for one test run of the binary, so tests never
/// read or write the real user's files.
struct TemporaryHome {
    let root: String
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

    /// Environment overrides pointing XDG at this home.
    var environment: [String: String] {
        [
            "XDG_CONFIG_HOME": config, "XDG_STATE_HOME": state, "XDG_DATA_HOME": data, "XDG_RUNTIME_DIR": runtime,
            "HOME": root,
        ]
    }

    /// Writes the user config file.
    func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: config + "/clawtalk", withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: config + "/clawtalk/config.json5"))
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}
