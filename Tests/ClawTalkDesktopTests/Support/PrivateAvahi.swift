import ClawTalkDesktop
import ClawTalkTesting
import Foundation

/// A real avahi-daemon on a private system bus (a `dbus-daemon` with a permissive system
/// config in a temp directory), plus `avahi-publish` services. Needs root (the daemon runs
/// with `--no-drop-root --no-chroot`), a multicast interface and no other avahi-daemon. Sets
/// `DBUS_SYSTEM_BUS_ADDRESS` for this process (libavahi-client reads it). Everything started
/// is killed in deinit.
final class PrivateAvahi {
    private let directory: TempDirectory
    private var processes: [Process] = []

    /// Starts the bus and the daemon and waits until the daemon owns its bus name.
    init() throws {
        directory = try TempDirectory(prefix: "avahi")
        let socket = directory.path("system_bus")
        try Data(Self.busConfig(socket: socket).utf8).write(to: URL(fileURLWithPath: directory.path("bus.conf")))
        try Data(Self.avahiConfig.utf8).write(to: URL(fileURLWithPath: directory.path("avahi.conf")))
        try start("/usr/bin/dbus-daemon", ["--config-file=\(directory.path("bus.conf"))", "--nofork", "--nopidfile"])
        try waitFor { FileManager.default.fileExists(atPath: socket) }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=\(socket)", 1)
        try start(
            "/usr/sbin/avahi-daemon",
            ["--no-drop-root", "--no-chroot", "--no-proc-title", "--no-rlimits", "-f", directory.path("avahi.conf")])
        let bus = try DBusLink(address: "unix:path=\(socket)")
        try waitFor { bus.hasOwner("org.freedesktop.Avahi") }
    }

    /// What the started tools wrote to standard error (for failure messages).
    var logs: String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.url.path)) ?? []
        return names.filter { $0.hasSuffix(".log") }.sorted().map { name in
            name + ": " + ((try? String(contentsOfFile: directory.path(name), encoding: .utf8)) ?? "")
        }.joined(separator: "\n")
    }

    /// Publishes a service with `avahi-publish -s` until deinit.
    func publish(name: String, type: String, port: Int, txt: [String]) throws {
        try start("/usr/bin/avahi-publish", ["-s", name, type, String(port)] + txt)
    }

    deinit {
        // Kill everything before waiting: Foundation reaps children one at a time, so waiting
        // for one while another is still alive can block.
        for process in processes.reversed() { kill(process.processIdentifier, SIGKILL) }
        for process in processes.reversed() { process.waitUntilExit() }
        unsetenv("DBUS_SYSTEM_BUS_ADDRESS")
    }

    private func start(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let log = directory.path((tool as NSString).lastPathComponent + "-\(processes.count).log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        processes.append(process)
    }

    private func waitFor(_ condition: () -> Bool) throws {
        for _ in 0..<100 {
            if condition() { return }
            usleep(50_000)
        }
        throw AvahiRigError()
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
struct AvahiRigError: Error, CustomStringConvertible {
    var description: String { "avahi-daemon on the private bus did not start" }
}
