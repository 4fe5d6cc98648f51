import ClawTalkSupport
import Foundation

/// `status.json` of the running service: `$XDG_RUNTIME_DIR/clawtalk/status.json`, or the state
/// directory without a runtime directory. Written atomically (mode 0600 in a 0700 directory) on
/// every change, removed when the service stops; the `pid` in it tells other commands whether a
/// service runs and where to send `SIGHUP`.
package struct StatusFile: Sendable {
    /// The file name.
    static let name = "status.json"
    /// The directory holding the file.
    let directory: String

    /// The location for `paths`.
    init(paths: XDGPaths) {
        directory = paths.runtimeDirectory ?? paths.stateDirectory
    }

    /// The location for an environment.
    package init(environment: [String: String]) {
        self.init(paths: XDGPaths(environment: environment))
    }

    /// Full path of the file.
    var path: String { directory + "/" + Self.name }

    /// Replaces the file with `status`.
    func write(_ status: ServiceStatus) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(status)
        data.append(UInt8(ascii: "\n"))
        try StateDirectory(path: directory).writeSecretFile(Self.name, data)
    }

    /// The snapshot, or nil when there is none.
    /// - Throws: permission problems, or ``NodeServiceError/unavailable(_:)`` for a file that is no status snapshot.
    package func read() throws -> ServiceStatus? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = try StateDirectory(path: directory).readSecretFile(Self.name) else { return nil }
        do {
            return try JSONDecoder().decode(ServiceStatus.self, from: data)
        } catch {
            throw NodeServiceError.unavailable("\(path) is not a clawtalk status snapshot")
        }
    }

    /// Deletes the file (only if it still belongs to `pid`, when given).
    func remove(ifOwnedBy pid: Int32? = nil) {
        if let pid, let current = try? read(), current.pid != pid { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The snapshot of a live service, or nil when none runs (a stale file is ignored).
    package func runningService() -> ServiceStatus? {
        guard let status = try? read(), Self.isAlive(status.pid) else { return nil }
        return status
    }

    /// Sends `SIGHUP` to the running service (reload: resume paused connections, re-read the
    /// current gateway); returns its pid, or nil when no service runs.
    @discardableResult
    package func signalReload() -> Int32? {
        guard let status = runningService(), kill(status.pid, SIGHUP) == 0 else { return nil }
        return status.pid
    }

    /// True when `pid` is a live clawtalk process (`/proc/<pid>/comm` guards against a reused pid).
    package static func isAlive(_ pid: Int32) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return true }
        return comm.hasPrefix("clawtalk")
    }
}
