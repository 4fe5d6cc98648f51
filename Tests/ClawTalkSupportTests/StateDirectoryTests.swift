import Foundation
import Testing

@testable import ClawTalkSupport

@Suite("State directory")
struct StateDirectoryTests {
    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func createsDirectoryWithMode0700() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let paths = XDGPaths(environment: ["HOME": dir.path, "XDG_STATE_HOME": dir.path + "/state"])
        let state = try StateDirectory.standard(paths: paths)
        #expect(state.path == dir.path + "/state/clawtalk")
        #expect(try mode(state.path) == 0o700)
        #expect(try mode(dir.path + "/state") == 0o700)
    }

    @Test func tightensLooseModeWithAWarning() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/clawtalk"
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let sink = RecordingLogSink()
        _ = try StateDirectory(path: path, logger: Logger(category: "state", sink: sink))
        #expect(try mode(path) == 0o700)
        #expect(sink.events == ["state.permissions.fixed"])
        #expect(sink.records.first?.level == .warning)
        #expect(sink.records.first?.fields["mode"] == "0755")
        // Already private: no warning the second time.
        _ = try StateDirectory(path: path, logger: Logger(category: "state", sink: sink))
        #expect(sink.records.count == 1)
    }

    @Test func refusesDirectoryOwnedByAnotherUser() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let actualOwner = try #require(
            try FileManager.default.attributesOfItem(atPath: dir.path)[.ownerAccountID] as? NSNumber)
        let stranger = actualOwner.uint32Value &+ 4242
        #expect(
            throws: StateDirectoryError.foreignOwner(path: dir.path, owner: actualOwner.uint32Value, expected: stranger)
        ) {
            try StateDirectory(path: dir.path, owner: stranger)
        }
    }

    @Test func refusesAFileInPlaceOfTheDirectory() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.write("clawtalk", "x")
        #expect(throws: StateDirectoryError.notADirectory(path: file)) { try StateDirectory(path: file) }
    }

    @Test func secretFilesAreWrittenAtomicallyWithMode0600() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let state = try StateDirectory(path: dir.path + "/s")
        try state.writeSecretFile("device.json", Data(#"{"k":1}"#.utf8))
        #expect(try mode(state.filePath("device.json")) == 0o600)
        #expect(try state.readSecretFile("device.json") == Data(#"{"k":1}"#.utf8))
        // Replacing keeps the mode and leaves no temp files behind.
        try state.writeSecretFile("device.json", Data("second".utf8))
        #expect(try state.readSecretFile("device.json") == Data("second".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path) == ["device.json"])
        #expect(try mode(state.filePath("device.json")) == 0o600)
    }

    @Test func missingSecretFileReadsAsNil() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let state = try StateDirectory(path: dir.path + "/s")
        #expect(try state.readSecretFile("absent.json") == nil)
        try state.removeFile("absent.json")
    }

    @Test("refuses secrets readable by group or others", arguments: [0o644, 0o640, 0o604, 0o660])
    func refusesLooseSecretFiles(_ loose: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let state = try StateDirectory(path: dir.path + "/s")
        try state.writeSecretFile("token.json", Data("t".utf8))
        try FileManager.default.setAttributes([.posixPermissions: loose], ofItemAtPath: state.filePath("token.json"))
        let expected = StateDirectoryError.insecureFile(path: state.filePath("token.json"), mode: UInt32(loose))
        #expect(throws: expected) { try state.readSecretFile("token.json") }
        #expect(expected.description.contains("chmod 600 \(state.filePath("token.json"))"))
    }

    /// Whether the tests run as root (only root can give a file to another user).
    static let runningAsRoot: Bool = {
        let probe = NSTemporaryDirectory() + "/clawtalk-root-probe-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard FileManager.default.createFile(atPath: probe, contents: Data()) else { return false }
        return (try? FileManager.default.attributesOfItem(atPath: probe)[.ownerAccountID] as? NSNumber)??.intValue == 0
    }()

    @Test(.enabled(if: runningAsRoot, "chown to another user needs root"))
    func refusesSecretFileOwnedByAnotherUser() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let state = try StateDirectory(path: dir.path + "/s")
        try state.writeSecretFile("token.json", Data("t".utf8))
        try FileManager.default.setAttributes([.ownerAccountID: 65534], ofItemAtPath: state.filePath("token.json"))
        #expect(
            throws: StateDirectoryError.foreignOwner(
                path: state.filePath("token.json"), owner: 65534, expected: state.owner)
        ) {
            try state.readSecretFile("token.json")
        }
    }

    @Test func refusesSymlinkedSecretFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let state = try StateDirectory(path: dir.path + "/s")
        let elsewhere = try dir.write("elsewhere.json", "x")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: state.filePath("token.json"), withDestinationPath: elsewhere)
        #expect(throws: StateDirectoryError.self) { try state.readSecretFile("token.json") }
    }

    @Test("rejects unsafe names", arguments: ["", ".", "..", "a/b", "../x"])
    func rejectsNames(_ name: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let state = try StateDirectory(path: dir.path + "/s")
        #expect(throws: StateDirectoryError.invalidName(name)) { try state.writeSecretFile(name, Data()) }
    }

    @Test func xdgDefaultsAndOverrides() {
        let defaults = XDGPaths(environment: ["HOME": "/home/u"])
        #expect(defaults.configHome == "/home/u/.config")
        #expect(defaults.stateHome == "/home/u/.local/state")
        #expect(defaults.dataHome == "/home/u/.local/share")
        #expect(defaults.runtimeDir == nil)
        #expect(defaults.configFile == "/home/u/.config/clawtalk/config.json5")
        #expect(defaults.defaultControlSocket == "/home/u/.local/state/clawtalk/control.sock")
        let custom = XDGPaths(environment: [
            "HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg/", "XDG_STATE_HOME": "relative/ignored",
            "XDG_DATA_HOME": "/data", "XDG_RUNTIME_DIR": "/run/user/1000",
        ])
        #expect(custom.configFile == "/cfg/clawtalk/config.json5")
        #expect(custom.stateDirectory == "/home/u/.local/state/clawtalk")
        #expect(custom.dataDirectory == "/data/clawtalk")
        #expect(custom.defaultControlSocket == "/run/user/1000/clawtalk/control.sock")
        #expect(custom.expandingTilde("~/x.json5") == "/home/u/x.json5")
    }
}
