import Foundation

/// A private `dbus-daemon --session` listening on a socket in a temp directory; killed in deinit.
public final class PrivateSessionBus {
    /// Its address (`unix:path=…,guid=…`).
    public let address: String
    private let process: Process
    private let directory: TempDirectory

    /// Starts the daemon and waits for the address it prints.
    public init() throws {
        directory = try TempDirectory(prefix: "dbus")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = [
            "--session", "--nofork", "--nopidfile", "--print-address=1",
            "--address=unix:path=\(directory.path("bus"))",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard address.hasPrefix("unix:") else {
            process.terminate()
            throw BusError()
        }
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// `dbus-daemon` did not start.
public struct BusError: Error, CustomStringConvertible {
    /// One line.
    public var description: String { "dbus-daemon printed no address" }
}
