import ClawTalkSupport
import Foundation

/// Writes and removes clawtalk's systemd user units in `$XDG_CONFIG_HOME/systemd/user`, and
/// asks `systemctl --user` to reload (and enable) them when a user manager is reachable.
public struct UserServiceInstaller: Sendable {
    /// The unit directory.
    public var unitDirectory: String
    /// The environment (`PATH` finds `systemctl`; the user bus comes from it).
    public var environment: [String: String]

    /// An installer for the XDG paths of `environment`.
    public init(environment: [String: String]) {
        self.environment = environment
        unitDirectory = XDGPaths(environment: environment).configHome + "/systemd/user"
    }

    /// Writes the node unit running `binary` and, with `includeSTT`, the speech-to-text unit
    /// (mode 0644, atomically). Returns the written paths.
    public func install(binary: String, includeSTT: Bool) throws -> [String] {
        try FileManager.default.createDirectory(atPath: unitDirectory, withIntermediateDirectories: true)
        var units = [
            (UserServiceUnits.nodeUnitName, UserServiceUnits.nodeUnit(binary: binary, externalSTT: includeSTT))
        ]
        if includeSTT { units.append((UserServiceUnits.sttUnitName, UserServiceUnits.sttUnit)) }
        var written: [String] = []
        for (name, text) in units {
            let path = unitDirectory + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            written.append(path)
        }
        return written
    }

    /// Removes the units that exist; returns the removed paths.
    public func uninstall() throws -> [String] {
        var removed: [String] = []
        for name in [UserServiceUnits.nodeUnitName, UserServiceUnits.sttUnitName] {
            let path = unitDirectory + "/" + name
            guard FileManager.default.fileExists(atPath: path) else { continue }
            try FileManager.default.removeItem(atPath: path)
            removed.append(path)
        }
        return removed
    }

    /// The outcome of a `systemctl --user` call.
    public enum SystemctlResult: Sendable, Equatable {
        /// It ran and succeeded.
        case succeeded
        /// `systemctl` is not on `PATH`.
        case notInstalled
        /// It ran and failed (typically no user manager: no login session, or a container);
        /// the payload is its first line of output.
        case failed(String)
    }

    /// Runs `systemctl --user <arguments>`.
    public func systemctl(_ arguments: [String]) -> SystemctlResult {
        let path = (environment["PATH"] ?? "").split(separator: ":").map { "\($0)/systemctl" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else { return .notInstalled }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--user"] + arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failed("\(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init)
            return .failed(text ?? "exit status \(process.terminationStatus)")
        }
        return .succeeded
    }
}
