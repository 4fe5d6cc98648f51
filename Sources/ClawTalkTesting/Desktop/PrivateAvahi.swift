import ClawTalkDesktop
import Foundation

/// A real avahi-daemon on a private system bus (a `dbus-daemon` with a permissive system
/// config in a temp directory), plus `avahi-publish` services. Needs root (the daemon runs
/// with `--no-drop-root --no-chroot`), a multicast interface and no other avahi-daemon. Sets
/// `DBUS_SYSTEM_BUS_ADDRESS` for this process (libavahi-client reads it). Everything started
/// is killed in deinit.
///
/// The tools are started with `posix_spawn` and reaped here, not with Foundation's `Process`:
/// avahi-daemon closes every inherited descriptor at start-up, which Foundation takes for the
/// child's exit, and its blocking `waitpid` on the still-running daemon then stalls every other
/// `Process` in the test run.
public final class PrivateAvahi {
    private let directory: TempDirectory
    private var children: [(pid: pid_t, tool: String)] = []

    /// Starts the bus and the daemon and waits until the daemon owns its bus name.
    public init() throws {
        directory = try TempDirectory(prefix: "avahi")
        let socket = directory.path("system_bus")
        try Data(Self.busConfig(socket: socket).utf8).write(to: URL(fileURLWithPath: directory.path("bus.conf")))
        try Data(Self.avahiConfig.utf8).write(to: URL(fileURLWithPath: directory.path("avahi.conf")))
        try start("/usr/bin/dbus-daemon", ["--config-file=\(directory.path("bus.conf"))", "--nofork", "--nopidfile"])
        try waitFor { FileManager.default.fileExists(atPath: socket) }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=\(socket)", 1)
        Self.removeStalePidFile()
        try start(
            "/usr/sbin/avahi-daemon",
            ["--no-drop-root", "--no-chroot", "--no-proc-title", "--no-rlimits", "-f", directory.path("avahi.conf")])
        let bus = try DBusLink(address: "unix:path=\(socket)")
        try waitFor { bus.hasOwner("org.freedesktop.Avahi") }
    }

    /// What the started tools wrote to standard error (for failure messages).
    public var logs: String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.url.path)) ?? []
        return names.filter { $0.hasSuffix(".log") }.sorted().map { name in
            name + ": " + ((try? String(contentsOfFile: directory.path(name), encoding: .utf8)) ?? "")
        }.joined(separator: "\n")
    }

    /// The private system bus address (for child processes' `DBUS_SYSTEM_BUS_ADDRESS`).
    public var systemBusAddress: String { "unix:path=" + directory.path("system_bus") }

    /// Publishes a service with `avahi-publish -s` until deinit; `host` names the SRV target
    /// (default: this machine's `.local` name).
    public func publish(name: String, type: String, port: Int, txt: [String], host: String? = nil) throws {
        try start(
            "/usr/bin/avahi-publish", ["-s"] + (host.map { ["-H", $0] } ?? []) + [name, type, String(port)] + txt)
    }

    /// Publishes an address record `host` → `address` (`avahi-publish -a -R`) until deinit.
    public func publishAddress(host: String, address: String) throws {
        try start("/usr/bin/avahi-publish", ["-a", "-R", host, address])
    }

    deinit {
        // The daemon gets SIGTERM (it removes its pid file and withdraws its records), the
        // publishers and the bus SIGKILL; a daemon that does not stop within 2 s is killed.
        for child in children.reversed() {
            kill(child.pid, child.tool.hasSuffix("avahi-daemon") ? SIGTERM : SIGKILL)
        }
        for child in children.reversed() {
            var status: Int32 = 0
            var waited: Int32 = 0
            for _ in 0..<40 {
                waited = waitpid(child.pid, &status, WNOHANG)
                if waited != 0 { break }
                usleep(50_000)
            }
            if waited == 0 {
                kill(child.pid, SIGKILL)
                waitpid(child.pid, &status, 0)
            }
        }
        unsetenv("DBUS_SYSTEM_BUS_ADDRESS")
    }

    /// avahi-daemon refuses to start while `/run/avahi-daemon/pid` names a live process; a
    /// daemon killed earlier leaves the file behind, and its pid may be reused.
    private static func removeStalePidFile() {
        let pidFile = "/run/avahi-daemon/pid"
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return }
        let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        if !comm.hasPrefix("avahi-daemon") { try? FileManager.default.removeItem(atPath: pidFile) }
    }

    private func start(_ tool: String, _ arguments: [String]) throws {
        let log = directory.path((tool as NSString).lastPathComponent + "-\(children.count).log")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        guard result == 0 else { throw AvahiRigError(logs: "\(tool): posix_spawn failed (\(result))") }
        children.append((pid, tool))
    }

    private func waitFor(_ condition: () -> Bool) throws {
        for _ in 0..<100 {
            if condition() { return }
            usleep(50_000)
        }
        throw AvahiRigError(logs: logs)
    }

    private static func busConfig(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*"/>
            <allow receive_sender="*"/>
          </policy>
        </busconfig>
        """
    }

    private static let avahiConfig = """
        [server]
        use-ipv4=yes
        use-ipv6=no
        ratelimit-interval-usec=1000000
        ratelimit-burst=1000
        [wide-area]
        enable-wide-area=no
        [publish]
        publish-hinfo=no
        publish-workstation=no
        """
}

/// The private Avahi rig did not come up.
public struct AvahiRigError: Error, CustomStringConvertible {
    /// One line.
    public var description: String { "avahi-daemon on the private bus did not start; \(logs)" }
    /// What the started tools wrote to standard error.
    var logs: String
}
