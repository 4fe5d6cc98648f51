import Foundation

/// The machine a report was measured on (benchmarks.md §7 `host`).
struct BenchMachine: Codable, Sendable, Equatable {
    /// CPU model name from /proc/cpuinfo.
    var cpu: String
    var cores: Int
    /// `uname -r`.
    var kernel: String
    /// PRETTY_NAME from /etc/os-release.
    var distro: String
    /// `pactl info` server name and version, when a sound server answers.
    var soundServer: String?

    /// Reads the current machine; `soundServer` is filled by the loopback runs.
    static func current() -> BenchMachine {
        var cpu = "unknown"
        if let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let value = line.split(separator: ":", maxSplits: 1).last
        {
            cpu = value.trimmingCharacters(in: .whitespaces)
        }
        var distro = "unknown"
        if let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") })
        {
            distro = line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        let kernel =
            (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
        return BenchMachine(
            cpu: cpu, cores: ProcessInfo.processInfo.activeProcessorCount, kernel: kernel, distro: distro)
    }

    /// One line: `cpu, N cores, distro, kernel K[, sound server]`.
    var summary: String {
        var line = "\(cpu), \(cores) cores, \(distro), kernel \(kernel)"
        if let soundServer { line += ", \(soundServer)" }
        return line
    }
}
